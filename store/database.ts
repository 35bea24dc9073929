import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Timestamps are read as JS Dates; columns with a `now()` default may be left out on insert. */
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
  /** The sandbox's shared demonstration key: it may only search and read offers and categories. */
  demo: Generated<boolean>;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
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

export interface CategoryTable {
  id: number;
  name: string;
  parent_id: number | null;
}

type Json = ColumnType<unknown, string, string>;

export interface AttachmentTable {
  id: string;
  client_id: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  object_key: string;
  /** Pixel size of an image, read from its header at upload; null for other files or an unreadable header. */
  width: ColumnType<number | null, number | null | undefined, number | null>;
  height: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface OfferTable {
  id: string;
  client_id: string;
  advertiser_id: string;
  status: string;
  type: string;
  title: string;
  start_date: string;
  end_date: string;
  price_amount: number | null;
  currency_code: string | null;
  initial_quantity: number | null;
  quantity_in_stock: number | null;
  reserved_quantity: Generated<number>;
  /** True once the advertiser supplied this offer's codes (supplied_vouchers): orders hand those out. */
  sells_supplied_codes: Generated<boolean>;
  /** The advertiser's fields as validated by the offer schema (JSON text on write). */
  document: Json;
  event_sequence: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  submitted_at: Timestamp;
  reviewed_at: Timestamp | null;
  reviewed_by: string | null;
  rejection_reason: string | null;
  published_at: Timestamp | null;
  closed_at: Timestamp | null;
  /** When the stock last reached zero or came back from it; stock moves leave updated_at alone. */
  availability_changed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Generated from the document (search sort keys); never written. */
  value_amount: ColumnType<number | null, never, never>;
  discount_percent: ColumnType<number | null, never, never>;
  /** Countries the offer is redeemable anywhere in, `{*}` with no location; kept by a trigger on offer_locations (migration 0007), never written. */
  nationwide_countries: ColumnType<string[], never, never>;
  /** Positions of the redemption locations a radius search cannot find (store/offers.ts writeSearchRows, migration 0014). */
  unplaced_locations: Generated<number[]>;
}

export interface OfferLocationTable {
  offer_id: string;
  position: number;
  city: string | null;
  state_code: string | null;
  postal_code: string | null;
  country_code: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface OfferCategoryTable {
  offer_id: string;
  category_id: number;
}

export interface OfferEventTable {
  id: string;
  offer_id: string;
  sequence: number;
  type: string;
  data: Json;
  created_at: Timestamp;
  /** Set once the event's callback deliveries exist (the dispatcher's outbox cursor). */
  dispatched_at: Timestamp | null;
}

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

export interface CommentTable {
  id: string;
  offer_id: string;
  author_role: 'advertiser' | 'review_team';
  author_name: string;
  content: string;
  attachment_ids: ColumnType<string[], string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Facts recorded once about the deployment this database belongs to (its environment). */
export interface DeploymentSettingTable {
  name: string;
  value: string;
  recorded_at: ColumnType<Date, never, never>;
}

export interface Database {
  api_clients: ApiClientTable;
  developer_signups: DeveloperSignupTable;
  deployment_settings: DeploymentSettingTable;
  categories: CategoryTable;
  attachments: AttachmentTable;
  offers: OfferTable;
  offer_locations: OfferLocationTable;
  offer_categories: OfferCategoryTable;
  offer_events: OfferEventTable;
  comments: CommentTable;
  callback_endpoints: CallbackEndpointTable;
  callback_deliveries: CallbackDeliveryTable;
  callback_attempts: CallbackAttemptTable;
  accounts: AccountTable;
  reservations: ReservationTable;
  orders: OrderTable;
  order_items: OrderItemTable;
  vouchers: VoucherTable;
  advertisers: AdvertiserTable;
  supplied_vouchers: SuppliedVoucherTable;
}

export type ApiClient = Selectable<ApiClientTable>;
export type NewApiClient = Insertable<ApiClientTable>;
export type DeveloperSignupRow = Selectable<DeveloperSignupTable>;
export type Category = Selectable<CategoryTable>;
export type OfferRow = Selectable<OfferTable>;
export type OfferEventRow = Selectable<OfferEventTable>;
export type AttachmentRow = Selectable<AttachmentTable>;
export type CommentRow = Selectable<CommentTable>;
export type CallbackEndpointRow = Selectable<CallbackEndpointTable>;
export type CallbackDeliveryRow = Selectable<CallbackDeliveryTable>;

export interface AccountTable {
  id: string;
  client_id: string;
  name: string;
  website_url: string | null;
  status: 'pending' | 'active' | 'cancelled';
  created_at: Timestamp;
  updated_at: Timestamp;
  activated_at: Timestamp | null;
  cancelled_at: Timestamp | null;
}

export interface ReservationTable {
  id: string;
  client_id: string;
  offer_id: string;
  account_id: string;
  quantity_reserved: number;
  /** Units still held for the account; 0 once released. */
  quantity_in_stock: number;
  start_date: string;
  end_date: string;
  status: 'active' | 'cancelled' | 'expired';
  created_at: Timestamp;
  updated_at: Timestamp;
  ended_at: Timestamp | null;
}

export interface OrderTable {
  id: string;
  client_id: string;
  order_number: string;
  workflow_id: string;
  account_id: string | null;
  application_id: string | null;
  customer_name: string;
  shipping_address: ColumnType<unknown, string | null, string | null>;
  status: 'active' | 'cancelled';
  purchased_at: Timestamp;
  cancelled_at: Timestamp | null;
}

export interface OrderItemTable {
  order_id: string;
  position: number;
  offer_id: string;
  quantity: number;
}

export interface VoucherTable {
  id: string;
  offer_id: string;
  order_id: string;
  client_id: string;
  account_id: string | null;
  reservation_id: string | null;
  counts_stock: boolean;
  redemption_code: string;
  barcode: string;
  customer_name: string;
  status: 'acquired' | 'redeemed' | 'cancelled';
  expiration_date: string | null;
  acquired_at: Timestamp;
  redeemed_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  updated_at: Timestamp;
  /** Whether the code was supplied by the advertiser (a row of supplied_vouchers with this id). */
  supplied: Generated<boolean>;
  /** Secret part of the customer's voucher page address; replaced to revoke it. */
  page_token: Generated<string>;
}

/** An advertiser of a submission client: its id is kept across renames. */
export interface AdvertiserTable {
  id: string;
  client_id: string;
  /** Stored trimmed; unique per client case-insensitively. */
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A voucher code an advertiser supplied for an offer; issued once, oldest first. */
export interface SuppliedVoucherTable {
  id: string;
  offer_id: string;
  advertiser_id: string;
  sequence: ColumnType<string, never, never>;
  redemption_code: string;
  barcode: string | null;
  order_id: string | null;
  created_at: Timestamp;
}

export type AccountRow = Selectable<AccountTable>;
export type ReservationRow = Selectable<ReservationTable>;
export type OrderRow = Selectable<OrderTable>;
export type OrderItemRow = Selectable<OrderItemTable>;
export type VoucherRow = Selectable<VoucherTable>;
export type AdvertiserRow = Selectable<AdvertiserTable>;
export type SuppliedVoucherRow = Selectable<SuppliedVoucherTable>;
