import type { Timestamp } from './columns';

/** A review-console operator added with `admin ops users add`: the name they sign in with and its scrypt hash. */
export interface OperatorTable {
  name: string;
  /** `scrypt:N:r:p:<salt>:<key>` (platform/passwords.ts); the password itself is never stored. */
  password_hash: string;
  created_at: Timestamp;
}
