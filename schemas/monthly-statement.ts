import { z } from 'zod';
import { monthPeriod } from '../domain/statements';
import type { MonthlyStatementRow } from '../store/monthly-statements';
import { listEnvelope } from './envelope';

/*
 * The stored monthly statements (docs/statements.md "Monthly statements"): GET /statements lists a
 * client's own, newest month first; GET /statements/:id answers one as GET /statement answers its
 * month (JSON or XML), GET /statements/:id.csv as CSV, from the files stored when it was made.
 */

const StoredFile = z.object({
  bytes: z.number().int().describe('Size of the stored file'),
  sha256: z.string().describe('SHA-256 of the stored file (hex): the same for every re-run of the month'),
});

export const MonthlyStatement = z.object({
  id: z.string(),
  month: z.string().describe('The UTC month covered, YYYY-MM'),
  from: z.string().describe('Its first day'),
  to: z.string().describe('Its last day'),
  lines: z.number().int().describe('Lines of the statement'),
  created_at: z.string().describe('When it was stored'),
  files: z.object({ json: StoredFile, csv: StoredFile, xml: StoredFile }),
});
export type MonthlyStatement = z.infer<typeof MonthlyStatement>;

export const MonthlyStatementList = listEnvelope('statements', MonthlyStatement);

/** The list item of a stored statement row. */
export function toMonthlyStatement(row: MonthlyStatementRow): MonthlyStatement {
  return {
    id: row.id,
    month: row.month,
    ...monthPeriod(row.month),
    lines: row.lines,
    created_at: row.created_at.toISOString(),
    files: row.files,
  };
}
