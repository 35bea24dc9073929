import type { ColumnType } from 'kysely';

/** Column types shared by the tables' row types (store/rows/*.ts). */

/** Timestamps are read as JS Dates; columns with a `now()` default may be left out on insert. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** JSON columns: read as parsed values, written as JSON text. */
export type Json = ColumnType<unknown, string, string>;
