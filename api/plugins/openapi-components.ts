import { z } from 'zod';
import { Account, AccountCreate, AccountList, AccountResponse, AccountUpdate } from '../../schemas/account';
import { AdvertiserList, AdvertiserResponse, AdvertiserSummary, AdvertiserUpdateBody } from '../../schemas/advertiser';
import { Attachment, AttachmentResponse } from '../../schemas/attachment';
import { Category, CategoryList } from '../../schemas/category';
import { Comment, CommentInput, CommentList, CommentResponse, CommentUpdate } from '../../schemas/comment';
import { Currency, Location, RedemptionLocation, Timestamp } from '../../schemas/common';
import { Signup, SignupCreate, SignupResponse } from '../../schemas/developer-signup';
import { DistributionMedium, DistributionOffer, DistributionOfferList, DistributionOfferResponse } from '../../schemas/distribution-offer';
import { AcceptedBody, ErrorBody, OkOnly } from '../../schemas/envelope';
import { EventFeedPage, FeedEvent } from '../../schemas/event-feed';
import { MonthlyStatement, MonthlyStatementList } from '../../schemas/monthly-statement';
import {
  Advertiser,
  BundleItem,
  Creative,
  CustomAttribute,
  Demographics,
  Discount,
  Exclusivity,
  Expiration,
  OfferUpdate,
  Restrictions,
  SubmissionOffer,
  SubmissionOfferList,
  SubmissionOfferResponse,
  SuppliedVoucher,
  SuppliedVoucherInput,
  SuppliedVoucherList,
} from '../../schemas/offer';
import { OfferCreate } from '../../schemas/offer-create';
import { Order, OrderCreate, OrderItem, OrderList, OrderResponse } from '../../schemas/order';
import { Reservation, ReservationCreate, ReservationList, ReservationResponse, ReservationUpdate } from '../../schemas/reservation';
import {
  DistributionStatement,
  DistributionStatementLine,
  DistributionStatementTotal,
  StatementAmount,
  SubmissionStatement,
  SubmissionStatementLine,
  SubmissionStatementTotal,
} from '../../schemas/statement';
import { RedemptionStaff, RedemptionStaffCreateBody, RedemptionStaffList, RedemptionStaffResponse } from '../../schemas/redemption-staff';
import { Redemption, Voucher, VoucherList, VoucherResponse, VoucherUpdateBody } from '../../schemas/voucher';
import { VoucherImport, VoucherImportCreate, VoucherImportList, VoucherImportResponse } from '../../schemas/voucher-import';
import { OfferImport, OfferImportResponse } from '../../schemas/offer-import';
import { BulkStatus, VoucherExport, VoucherExportResponse } from '../../schemas/voucher-export';

/*
 * The named parts of the OpenAPI documents: each schema here is registered once, under its name,
 * in zod's global registry, and fastify-type-provider-zod turns every use of it into a `$ref` to
 * one `components.schemas` entry (docs/decisions/0051-openapi-components.md). The names are API:
 * generated clients name their types after them. A name is the spec's where the spec has one
 * (§2: Currency, Discount, BundleItem, …); where the two interfaces show a resource differently,
 * the interface names it (SubmissionOffer, DistributionOffer). Request bodies are the parts a
 * client sends: the plugin names the form a request takes `<name>Input` (defaults optional), the
 * answer's form `<name>`.
 *
 * Registering adds an id beside a schema's metadata (description, examples) and changes nothing
 * it validates or serializes. Query and path parameters are never named: @fastify/swagger lists
 * them one by one, which a `$ref` would hide.
 */
export const COMPONENTS: Record<string, z.ZodType> = {
  // Whole answers: `{status:"OK", <resource>}` and the lists' pages, JSON and XML alike.
  SubmissionOfferResponse,
  SubmissionOfferList,
  SuppliedVoucherList,
  DistributionOfferResponse,
  DistributionOfferList,
  OrderResponse,
  OrderList,
  VoucherResponse,
  VoucherList,
  AccountResponse,
  AccountList,
  ReservationResponse,
  ReservationList,
  AttachmentResponse,
  CommentResponse,
  CommentList,
  CategoryList,
  AdvertiserList,
  AdvertiserResponse,
  MonthlyStatementList,
  VoucherImportResponse,
  VoucherImportList,
  EventPage: EventFeedPage,
  SignupResponse,
  RedemptionStaffResponse,
  RedemptionStaffList,
  VoucherExportResponse,
  OfferImportResponse,
  Ok: OkOnly,
  // Answers: the resources.
  SubmissionOffer,
  DistributionOffer,
  Order,
  Voucher,
  Redemption,
  Account,
  Reservation,
  Attachment,
  Comment,
  Category,
  Advertiser,
  AdvertiserSummary,
  SubmissionStatement,
  SubmissionStatementLine,
  SubmissionStatementTotal,
  DistributionStatement,
  DistributionStatementLine,
  DistributionStatementTotal,
  StatementAmount,
  MonthlyStatement,
  VoucherImport,
  Event: FeedEvent,
  Signup,
  RedemptionStaff,
  VoucherExport,
  OfferImport,
  Error: ErrorBody,
  Accepted: AcceptedBody,
  // Their parts (spec §2.2, §2.10).
  Currency,
  Timestamp,
  Discount,
  Exclusivity,
  Demographics,
  Restrictions,
  BundleItem,
  Expiration,
  Creative,
  CustomAttribute,
  Location,
  RedemptionLocation,
  OrderItem,
  SuppliedVoucher,
  SuppliedVoucherCode: SuppliedVoucherInput,
  DistributionMedium,
  BulkStatus,
  // What clients send (each named `<name>Input` in the documents).
  OfferCreate,
  VoucherImportCreate,
  OfferUpdate,
  OrderCreate,
  AccountCreate,
  AccountUpdate,
  ReservationCreate,
  ReservationUpdate,
  CommentCreate: CommentInput,
  CommentUpdate,
  SignupCreate,
  // The body's own schema, not the body: the body carries the examples the reference shows.
  VoucherUpdate: VoucherUpdateBody.shape.voucher,
  RedemptionStaffCreate: RedemptionStaffCreateBody.shape.redemption_staff,
  AdvertiserUpdate: AdvertiserUpdateBody.shape.advertiser,
};

for (const [id, schema] of Object.entries(COMPONENTS)) {
  // zod's registry lives on globalThis, and a copy made by `.describe()`/`.meta()` inherits its
  // schema's id. When a test runner evaluates this module again in the same global, the old copies
  // still hold the names: the new schemas take them over (zod would refuse a second holder). That
  // each component has one name and appears once is test/unit/openapi-components.test.ts's check.
  const taken = z.globalRegistry._idmap.get(id);
  if (taken && taken !== schema) z.globalRegistry.remove(taken);
  // `add` replaces a schema's metadata: the id goes beside what `.meta()`/`.describe()` gave it.
  z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), id });
}
