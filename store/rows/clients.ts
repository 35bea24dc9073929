import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { Timestamp } from './columns';

/* The API's clients: their keys, self-service sign-ups, and what the deployment recorded about itself. */

export interface ApiClientTable {
  id: string;
  name: string;
  interface: 'submission' | 'distribution';
  environment: 'sandbox' | 'production';
  /** SHA-256 of the key: the key itself is shown once and never stored. */
  key_hash: string;
  /** First characters of the key, so operators can tell keys apart. */
  key_prefix: string;
  /** When the current key was issued (at creation, or by its latest roll). */
  key_created_at: Timestamp;
  /** The current key's last use, to the minute (docs/decisions/0073-api-key-rolling.md). */
  key_last_used_at: Timestamp | null;
  reservations_enabled: Generated<boolean>;
  /** The sandbox's shared demonstration key: it may only search and read offers and categories. */
  demo: Generated<boolean>;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

/** A key rolled away from its client: it works until `expires_at`, then is refused as expired. */
export interface RolledApiKeyTable {
  key_hash: string;
  client_id: string;
  key_prefix: string;
  /** When this key was issued. */
  created_at: Timestamp;
  rolled_at: Timestamp;
  expires_at: Timestamp;
  last_used_at: Timestamp | null;
}

/** Who signed up for a sandbox key pair by themselves (developer sign-up, spec 5.3). */
export interface DeveloperSignupTable {
  id: string;
  /** Lower-case; one sign-up per address. */
  email: string;
  name: string | null;
  submission_client_id: string;
  distribution_client_id: string;
  /** The client address the sign-up came from (as TRUST_PROXY resolves it), for abuse reports. */
  client_address: string;
  created_at: Timestamp;
}

/** Facts recorded once about the deployment this database belongs to (its environment). */
export interface DeploymentSettingTable {
  name: string;
  value: string;
  recorded_at: ColumnType<Date, never, never>;
}

export type ApiClient = Selectable<ApiClientTable>;
export type NewApiClient = Insertable<ApiClientTable>;
export type RolledApiKeyRow = Selectable<RolledApiKeyTable>;
export type DeveloperSignupRow = Selectable<DeveloperSignupTable>;
