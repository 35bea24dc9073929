import { buffer } from 'node:stream/consumers';
import type { Page, Paged } from '../domain/paging';
import { Failure, notFound } from '../domain/failures';
import { monthNotEnded, STATEMENT_MONTH } from '../domain/statements';
import {
  MONTHLY_STATEMENTS_WORKFLOW_TYPE,
  type MonthlyStatementsInput,
  type MonthlyStatementsResult,
} from '../workflows/monthly-statements-messages';
import { monthlyStatementsWorkflowId } from '../workflows/shared/ids';
import { toMonthlyStatement, type MonthlyStatement } from '../schemas/monthly-statement';
import type { DistributionStatement, SubmissionStatement } from '../schemas/statement';
import { findMonthlyStatement, listMonthlyStatements as listRows } from '../store/monthly-statements';
import type { ServiceDeps } from './deps';
import { readStored } from './attachments';

/*
 * The stored monthly statements (docs/statements.md "Monthly statements"), each client seeing only
 * its own: the rows the monthly-statements workflow recorded, and the files it stored.
 */

type Deps = Pick<ServiceDeps, 'db' | 'store'>;

export async function listMonthlyStatements(deps: Pick<ServiceDeps, 'db'>, clientId: string, page: Page): Promise<Paged<MonthlyStatement>> {
  const { rows, total } = await listRows(deps.db, clientId, page);
  return { rows: rows.map(toMonthlyStatement), total };
}

/** One stored file of one of the client's statements, as stored. */
export async function readMonthlyStatementFile(
  deps: Deps,
  clientId: string,
  id: string,
  format: 'json' | 'csv' | 'xml',
): Promise<{ month: string; body: string }> {
  const row = await findMonthlyStatement(deps.db, clientId, id);
  if (!row) throw notFound('statement');
  const stream = await readStored(deps.store, `${row.object_key}.${format}`, () => notFound('statement file'));
  return { month: row.month, body: (await buffer(stream)).toString('utf8') };
}

/** One of the client's statements as GET /statement answers its month (its stored JSON file). */
export async function getMonthlyStatement(deps: Deps, clientId: string, id: string): Promise<SubmissionStatement | DistributionStatement> {
  return JSON.parse((await readMonthlyStatementFile(deps, clientId, id, 'json')).body) as SubmissionStatement | DistributionStatement;
}

/**
 * Runs the monthly statements of `month` now (`admin statements run <month>`, docs/statements.md)
 * and waits for the result: the workflow the schedule starts on the 1st, for any month. A run of
 * the same month already going is joined; a month run before stores only what is missing. A month
 * that has not ended (UTC) is refused: its statement would be stored short, and never made again.
 */
export async function runMonthlyStatements(
  deps: Pick<ServiceDeps, 'temporal' | 'config'>,
  month: string,
  now: Date = new Date(),
): Promise<MonthlyStatementsResult> {
  if (!STATEMENT_MONTH.test(month)) throw new Failure('invalid_field', `month: ${month} is not a month (YYYY-MM)`, { field: 'month' });
  // Refused before anything starts: nothing stored, no event (the workflow refuses it too).
  const notEnded = monthNotEnded(month, now);
  if (notEnded) throw new Failure('invalid_field', `month: ${notEnded}`, { field: 'month' });
  const taskQueue = deps.config.TEMPORAL_TASK_QUEUE;
  const handle = await deps.temporal.workflow.start<(i: MonthlyStatementsInput) => Promise<MonthlyStatementsResult>>(
    MONTHLY_STATEMENTS_WORKFLOW_TYPE,
    {
      workflowId: monthlyStatementsWorkflowId(taskQueue, month),
      taskQueue,
      args: [{ month }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    },
  );
  return handle.result();
}
