import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Timestamps are written by Postgres (`now()`) and read as JS Dates. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface ApiClientTable {
  id: string;
  name: string;
  interface: 'submission' | 'distribution';
  environment: 'sandbox' | 'production';
  /** SHA-256 of the key: the key itself is shown once and never stored. */
  key_hash: string;
  /** First characters of the key, so operators can tell keys apart. */
  key_prefix: string;
  reservations_enabled: Generated<boolean>;
  created_at: Generated<Timestamp>;
  revoked_at: Timestamp | null;
}

export interface CategoryTable {
  id: number;
  name: string;
  parent_id: number | null;
}

export interface Database {
  api_clients: ApiClientTable;
  categories: CategoryTable;
}

export type ApiClient = Selectable<ApiClientTable>;
export type NewApiClient = Insertable<ApiClientTable>;
export type Category = Selectable<CategoryTable>;
