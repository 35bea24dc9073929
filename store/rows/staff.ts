import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Timestamp } from './columns';

/** A redemption staff credential an advertiser created (docs/merchant-counter.md). */
export interface RedemptionStaffTable {
  id: string;
  /** The submission client, and its advertiser whose vouchers the staff member redeems. */
  client_id: string;
  advertiser_id: string;
  name: string;
  /** Only at the advertiser's redemption locations with these postal codes; null: at all of them. */
  postal_codes: string[] | null;
  /** SHA-256 (hex) of the one-time sign-in code; null once used. */
  sign_in_hash: string | null;
  sign_in_expires_at: Timestamp | null;
  created_at: Generated<Date>;
  revoked_at: Timestamp | null;
}

/** A signed-in counter browser: the SHA-256 of its session cookie. */
export interface StaffSessionTable {
  token_hash: string;
  staff_id: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  expires_at: Timestamp;
}

export type RedemptionStaffRow = Selectable<RedemptionStaffTable>;
