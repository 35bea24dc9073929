import { sql, type RawBuilder } from 'kysely';

/*
 * Rows sent as one array per column and turned back into rows by Postgres (`unnest`): a batch of
 * any size is one statement with one parameter per column, never near the 65,535 parameters of
 * a multi-row VALUES list (a batch of orders may carry 10,000 vouchers).
 */

/** Postgres array types of the columns sent (json goes as text and is cast where it is used). */
export type ColumnType = 'text' | 'int' | 'bigint' | 'bool' | 'date';

/**
 * `unnest($1::text[], $2::int[], …) as <alias>(col, …)`: the rows as a table to select from,
 * its columns named and typed by `columns`, taken from each row's property of that name.
 */
export function unnestRows<R>(alias: string, columns: { [K in string & keyof R]?: ColumnType }, rows: readonly R[]): RawBuilder<unknown> {
  const names = Object.keys(columns) as (string & keyof R)[];
  const arrays = names.map((n) => sql`${sql.val(rows.map((r) => r[n] ?? null))}::${sql.raw(columns[n]!)}[]`);
  return sql`unnest(${sql.join(arrays)}) as ${sql.id(alias)}(${sql.join(names.map((n) => sql.id(n)))})`;
}
