import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, Timestamp } from './columns';

/* Offers and what hangs off them: search rows, outbox events, comments, attachments, advertisers, categories, supplied codes. */

export interface CategoryTable {
  id: number;
  name: string;
  parent_id: number | null;
}

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
  /** When the pending round's review SLA ends (migration 0071); null when not pending. */
  review_due_at: Timestamp | null;
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
  /** The visibility rule's document fields as columns (migration 0031), for the search's covering index; never written. */
  vouchers_expire_on: ColumnType<string | null, never, never>;
  /** The day an exclusive offer opens to every publisher ('9999-12-31': never), null when not exclusive. */
  exclusive_until: ColumnType<string | null, never, never>;
  /** The publishers an exclusive offer is open to (a JSON array of client ids), null when not exclusive. */
  exclusive_channels: ColumnType<unknown, never, never>;
  /** The document's category ids (as offer_categories holds them), generated (migration 0031); never written. */
  category_ids: ColumnType<number[], never, never>;
  /** Positions of the redemption locations a radius search cannot find (store/offer-search-rows.ts writeSearchRows, migration 0014). */
  unplaced_locations: Generated<number[]>;
}

/**
 * A search row's copies of its offer's filters (migration 0037: on sale apart from the day, the
 * dates, type, vouchers' expiry, exclusivity, categories; price and publication to sort by), kept by triggers; never written.
 */
interface SearchRowCopies {
  on_sale: ColumnType<boolean, never, never>;
  start_date: ColumnType<string | null, never, never>;
  end_date: ColumnType<string | null, never, never>;
  type: ColumnType<string | null, never, never>;
  vouchers_expire_on: ColumnType<string | null, never, never>;
  exclusive_until: ColumnType<string | null, never, never>;
  exclusive_channels: ColumnType<unknown, never, never>;
  category_ids: ColumnType<number[] | null, never, never>;
  price_amount: ColumnType<number | null, never, never>;
  published_at: ColumnType<Date | null, never, never>;
}

export interface OfferLocationTable extends SearchRowCopies {
  offer_id: string;
  position: number;
  city: string | null;
  state_code: string | null;
  postal_code: string | null;
  country_code: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface OfferCategoryTable extends SearchRowCopies {
  offer_id: string;
  category_id: number;
}

/** An offer's words for keyword search, weighted by field, with the search rows' copies (migration 0073); kept by triggers, never written. */
export interface OfferSearchDocumentTable extends SearchRowCopies {
  offer_id: ColumnType<string, never, never>;
  words: ColumnType<string, never, never>;
  /** The title's and headlines' words alone (weights A, B): a keyword search reads matches there first. */
  head: ColumnType<string, never, never>;
  /** The grid cells of its placed locations (migration 0074, domain/search-geometry.ts): a search with a centre intersects them first. */
  cells: ColumnType<number[], never, never>;
}

/** Every word an offer has used (accents dropped, lower case), for typo corrections (migration 0073); kept by triggers. */
export interface SearchWordTable {
  word: ColumnType<string, never, never>;
}

export interface OfferEventTable {
  id: string;
  /** The offer the event is about; null for an event addressed to one client (client_id), e.g. `statement.ready`. */
  offer_id: string | null;
  /** The one client a client event is for (its offer_id null); null for offer events. */
  client_id: ColumnType<string | null, string | null | undefined, never>;
  sequence: number;
  type: string;
  data: Json;
  created_at: Timestamp;
  /**
   * The offer's `exclusivity` when the event was written ({} for none), set by a trigger (migration
   * 0066); null for events before it. Who may see the event is judged by it (decision 0074).
   */
  exclusivity: ColumnType<unknown, never, never>;
  /** Set once the event's callback deliveries exist (the dispatcher's outbox cursor). */
  dispatched_at: Timestamp | null;
  /** Its place in the change feed, given after its transaction committed (numberCommittedEvents); bigint, read as text. */
  feed_position: ColumnType<string | null, never, never>;
  /** When it got that place. */
  fed_at: ColumnType<Date | null, never, never>;
}

/** The change feed's floor (migration 0046): events at or below `position` were pruned; one row. */
export interface FeedFloorTable {
  id: ColumnType<number, never, never>;
  /** bigint, read as a number (store/db.ts). */
  position: number;
  moved_at: Timestamp | null;
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

/** An advertiser of a submission client: its id is kept across renames. */
export interface AdvertiserTable {
  id: string;
  client_id: string;
  /** Stored trimmed; unique per client case-insensitively. */
  name: string;
  /** IANA name in Intl's spelling (domain/time-zones.ts); 'UTC' until the client sets one. */
  time_zone: Generated<string>;
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
  /** The bulk import that brought it (voucher_imports); null when the offer's own request did. */
  import_id: ColumnType<string | null, string | null | undefined, never>;
}

export type OfferRow = Selectable<OfferTable>;
export type OfferEventRow = Selectable<OfferEventTable>;
export type AttachmentRow = Selectable<AttachmentTable>;
export type CommentRow = Selectable<CommentTable>;
export type AdvertiserRow = Selectable<AdvertiserTable>;

/** One step of an offer's review (migration 0071): written with the change it records, never updated. */
export interface OfferReviewStepTable {
  id: string;
  offer_id: string;
  at: Timestamp;
  /** submitted, resubmitted, edited, review_started, overdue, or the status moved to (approved, rejected, withdrawn, …). */
  kind: string;
  actor: string;
  /** The operator's name as the console shows it (a decision, an opening). */
  operator: string | null;
  reason: string | null;
  changed_fields: string[] | null;
  /** A decision's: how long its round waited, and the offer's first category then. */
  waited_seconds: number | null;
  category_id: number | null;
}

/** The review SLA an operator set (migration 0072); no row: the default. */
export interface ReviewSlaTable {
  one: Generated<boolean>;
  seconds: number;
  set_at: Timestamp;
}

export type OfferReviewStepRow = Selectable<OfferReviewStepTable>;
