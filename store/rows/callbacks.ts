import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Timestamp } from './columns';

/* Clients' callback endpoints, the deliveries owed to them and each attempt made. */

export interface CallbackEndpointTable {
  id: string;
  client_id: string;
  url: string;
  format: ColumnType<'json' | 'xml', 'json' | 'xml' | undefined, 'json' | 'xml'>;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  status: ColumnType<'enabled' | 'disabled', 'enabled' | 'disabled' | undefined, 'enabled' | 'disabled'>;
  disabled_reason: string | null;
  disabled_at: Timestamp | null;
  consecutive_failures: Generated<number>;
  failing_since: Timestamp | null;
  last_success_at: Timestamp | null;
  /** The event types it receives; empty: every type its client may receive. */
  event_types: ColumnType<string[], string[] | undefined, string[]>;
  /** At most this many attempts a second (1–100), spread evenly; null: no limit. */
  max_per_second: number | null;
  description: string | null;
  /** The end of the last pacing slot handed out (store/callback-endpoints.ts `reserveEndpointSlot`); null when never paced. */
  paced_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type CallbackDeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface CallbackDeliveryTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  offer_id: string;
  sequence: number;
  type: string;
  /** The JSON body exactly as sent. */
  payload: string;
  replay: Generated<boolean>;
  status: ColumnType<CallbackDeliveryStatus, CallbackDeliveryStatus | undefined, CallbackDeliveryStatus>;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Timestamp | null;
  delivered_at: Timestamp | null;
  /** While the dispatcher makes the first attempt itself: nobody else attempts this lane until then. */
  leased_until: Timestamp | null;
  /** The pacing slot its next attempt holds, on an endpoint with max_per_second (store/callback-deliveries.ts `paceDelivery`). */
  paced_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CallbackAttemptTable {
  id: string;
  delivery_id: string;
  attempt: number;
  started_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

export type CallbackEndpointRow = Selectable<CallbackEndpointTable>;
