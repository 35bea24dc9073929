import { gauge } from './metrics';

/*
 * Data that stops growing (docs/data-retention.md): for each table the pruning schedule keeps in
 * check, how many rows it holds and how old its oldest is. Read from Postgres at scrape time.
 */

const tableRows = gauge(
  'pruned_table_rows',
  'rows in each table the pruning schedule keeps in check, estimated from the planner statistics ' +
    '(pg_class.reltuples scaled to the current size); counted exactly (up to 100000) until the table is first analysed',
  ['table'],
);
const oldestRowAge = gauge(
  'pruned_table_oldest_row_age_seconds',
  'age of the oldest row kept in each table the pruning schedule keeps in check (0 when it is empty)',
  ['table'],
);

/** One pruned table as a scrape reads it. */
export interface PrunedTableSnapshot {
  table: string;
  rows: number;
  oldestAgeSeconds: number;
}

/** Sets the scrape-time gauges. */
export function observePrunedTables(tables: PrunedTableSnapshot[]): void {
  for (const t of tables) {
    tableRows.set({ table: t.table }, t.rows);
    oldestRowAge.set({ table: t.table }, t.oldestAgeSeconds);
  }
}
