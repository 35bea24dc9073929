import type { ApiClientTable, DeploymentSettingTable, DeveloperSignupTable, RolledApiKeyTable } from './rows/clients';
import type { CallbackAttemptTable, CallbackDeliveryTable, CallbackEndpointTable } from './rows/callbacks';
import type {
  AdvertiserTable,
  AttachmentTable,
  CategoryTable,
  CommentTable,
  OfferCategoryTable,
  OfferSearchDocumentTable,
  SearchWordTable,
  FeedFloorTable,
  OfferEventTable,
  OfferLocationTable,
  OfferReviewStepTable,
  ReviewSlaTable,
  OfferTable,
  SuppliedVoucherTable,
} from './rows/offers';
import type { IdempotencyKeyTable } from './rows/idempotency';
import type { VoucherImportBatchTable, VoucherImportRejectionTable, VoucherImportTable } from './rows/voucher-imports';
import type { OfferImportLineTable, OfferImportTable, VoucherExportTable } from './rows/bulk';
import type { OperatorTable } from './rows/operators';
import type { RedemptionStaffTable, StaffSessionTable } from './rows/staff';
import type { PostalCodeTable } from './rows/postal-codes';
import type { MonthlyStatementTable } from './rows/statements';
import type { AccountTable, OrderItemTable, OrderTable, ReservationTable, VoucherRedemptionTable, VoucherTable } from './rows/orders';

/*
 * The database as Kysely sees it: one entry per table. The tables' row types live by aggregate in
 * store/rows/*.ts and are re-exported here, so `store/database` stays the one place to import them from.
 */

export interface Database {
  api_clients: ApiClientTable;
  rolled_api_keys: RolledApiKeyTable;
  developer_signups: DeveloperSignupTable;
  deployment_settings: DeploymentSettingTable;
  categories: CategoryTable;
  attachments: AttachmentTable;
  offers: OfferTable;
  offer_locations: OfferLocationTable;
  offer_categories: OfferCategoryTable;
  offer_search_documents: OfferSearchDocumentTable;
  search_words: SearchWordTable;
  offer_events: OfferEventTable;
  feed_floor: FeedFloorTable;
  comments: CommentTable;
  offer_review_steps: OfferReviewStepTable;
  review_sla: ReviewSlaTable;
  callback_endpoints: CallbackEndpointTable;
  callback_deliveries: CallbackDeliveryTable;
  callback_attempts: CallbackAttemptTable;
  accounts: AccountTable;
  reservations: ReservationTable;
  orders: OrderTable;
  order_items: OrderItemTable;
  vouchers: VoucherTable;
  voucher_redemptions: VoucherRedemptionTable;
  advertisers: AdvertiserTable;
  supplied_vouchers: SuppliedVoucherTable;
  operators: OperatorTable;
  postal_codes: PostalCodeTable;
  monthly_statements: MonthlyStatementTable;
  idempotency_keys: IdempotencyKeyTable;
  voucher_imports: VoucherImportTable;
  voucher_import_batches: VoucherImportBatchTable;
  voucher_import_rejections: VoucherImportRejectionTable;
  redemption_staff: RedemptionStaffTable;
  staff_sessions: StaffSessionTable;
  voucher_exports: VoucherExportTable;
  offer_imports: OfferImportTable;
  offer_import_lines: OfferImportLineTable;
}

export type * from './rows/clients';
export type * from './rows/offers';
export type * from './rows/callbacks';
export type * from './rows/orders';
export type * from './rows/operators';
export type * from './rows/postal-codes';
export type * from './rows/statements';
export type * from './rows/idempotency';
export type * from './rows/voucher-imports';
export type * from './rows/staff';
export type * from './rows/bulk';
