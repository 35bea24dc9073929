import type { ColumnType } from 'kysely';

/** The three files of a stored statement: each one's size and SHA-256 (hex), by format. */
export type StatementFiles = Record<'json' | 'csv' | 'xml', { bytes: number; sha256: string }>;

/** One stored monthly statement of one client (docs/statements.md "Monthly statements"). */
export interface MonthlyStatementTable {
  id: string;
  client_id: string;
  interface: 'submission' | 'distribution';
  /** `YYYY-MM`, the UTC month the statement covers. */
  month: string;
  /** The files are at `<object_key>.json`, `.csv` and `.xml` in the object store. */
  object_key: string;
  lines: number;
  files: ColumnType<StatementFiles, string, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
}
