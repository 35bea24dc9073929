import { sql } from 'kysely';
import type { Database } from './database';
import type { Db } from './db';

/*
 * Row counts for /metrics without counting big tables on every scrape: the planner's own estimate,
 * pg_class.reltuples (as of the table's last VACUUM or ANALYZE) scaled to its current size in pages,
 * as the planner does. A table with no statistics yet (never analysed, or analysed while empty) is
 * counted instead, up to EXACT_COUNT_CAP rows: it is small, or autovacuum analyses it soon.
 */

const EXACT_COUNT_CAP = 100_000;

interface TableSize {
  name: keyof Database;
  reltuples: number;
  relpages: number;
  pages: number;
}

/** Estimated rows of each table named (see above). */
export async function estimatedRowCounts<T extends keyof Database>(db: Db, tables: readonly T[]): Promise<Record<T, number>> {
  const { rows } = await sql<TableSize>`
    select c.relname as name, c.reltuples, c.relpages, pg_relation_size(c.oid) / current_setting('block_size')::int as pages
      from pg_class c where c.oid = any(${[...tables]}::text[]::regclass[])`.execute(db);
  const counts = {} as Record<T, number>;
  for (const r of rows) {
    const name = r.name as T;
    if (r.reltuples >= 0 && r.relpages > 0) counts[name] = Math.round((r.reltuples / r.relpages) * r.pages);
    else if (r.reltuples >= 0 && r.pages === 0) counts[name] = 0;
    else counts[name] = await cappedCount(db, name);
  }
  return counts;
}

async function cappedCount(db: Db, table: keyof Database): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from (select 1 from ${sql.table(table)} limit ${EXACT_COUNT_CAP}) t`.execute(db);
  return Number(rows[0].n);
}

/** How long ago the oldest row of `table` by `column` was written, in seconds (read through that column's index); undefined when empty. */
export async function oldestRowAge(db: Db, table: keyof Database, column: string): Promise<number | undefined> {
  const { rows } = await sql<{ age: string }>`
    select extract(epoch from now() - ${sql.ref(column)}) as age from ${sql.table(table)} order by ${sql.ref(column)} limit 1`.execute(db);
  return rows.length ? Math.max(0, Number(rows[0].age)) : undefined;
}
