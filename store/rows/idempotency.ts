import type { ColumnType } from 'kysely';

export type IdempotencyAnswerKind = 'bytes' | 'value' | 'secret_shown';

/** One client's Idempotency-Key and what it answered (store/idempotency-keys.ts). */
export interface IdempotencyKeyTable {
  client_id: string;
  key: string;
  /** SHA-256 (hex) of the request's method, path and canonical body. */
  request_hash: string;
  state: 'in_progress' | 'completed';
  status_code: number | null;
  headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  body: Buffer | null;
  /** How `body` is read (migration 0063): the answer's bytes, its value (JSON, its Dates and BigInts tagged), or nothing (it held a secret). */
  answer: ColumnType<IdempotencyAnswerKind, IdempotencyAnswerKind | undefined, IdempotencyAnswerKind>;
  created_at: ColumnType<Date, Date | undefined, Date>;
  expires_at: Date;
}
