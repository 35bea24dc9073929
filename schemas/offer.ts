import { z } from 'zod';
import { boundedInt, CalendarDate, Currency, DateString, HttpUrl, IdParam, PG_INTEGER_MAX, RedemptionLocation, Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';
import { PageQuery } from './pagination';
import { CLIENT_STATUSES, OFFER_STATUSES } from '../domain/offer-lifecycle';
import { utcDay } from '../domain/dates';
import { vouchersExpireProblem } from '../domain/voucher-expiry';

/*
 * The Offer resource (spec §2.1–2.2). Types the spec leaves "not shown" (Discount, Exclusivity,
 * Demographics, Restrictions, BundleItem, other Expiration forms) are designed here and described
 * in docs/resources.md.
 */

export const OFFER_TYPES = ['deal', 'coupon', 'gift_card'] as const;
export const OfferType = z.enum(OFFER_TYPES);

export const OfferStatus = z.enum(OFFER_STATUSES);
export type OfferStatus = z.infer<typeof OfferStatus>;

export const Discount = z
  .object({
    type: z.enum(['percentage', 'fixed_amount']),
    percentage: z.number().min(0).max(100).optional(),
    amount: Currency.optional(),
    description: z.string().max(200).optional(),
  })
  .refine((d) => (d.type === 'percentage' ? d.percentage !== undefined : d.amount !== undefined), {
    message: 'a percentage discount needs `percentage`; a fixed_amount discount needs `amount`',
  });

/*
 * Date-bearing parts are built over a day schema: clients send DateString (bounded to what the
 * database stores and the business means); answers show stored days with CalendarDate, so an
 * offer written before the bound still reads.
 */
type Day = typeof DateString | typeof CalendarDate;

const exclusivity = (day: Day) =>
  z.object({
    exclusive: z.boolean(),
    /** Distribution client ids the exclusivity is granted to (docs/distribution-offers.md, "Exclusive offers"). */
    channels: z
      .array(z.string().min(1).max(100))
      .max(50)
      .optional()
      .describe('Distribution client ids the offer is exclusive to; a value that is not one is refused (422)'),
    until: day.optional().describe('The first day (UTC) the offer is open to every distributor; absent: exclusive for as long as it runs'),
  });
export const Exclusivity = exclusivity(DateString);

export const Demographics = z.object({
  gender: z.enum(['any', 'female', 'male']).optional(),
  min_age: z.number().int().min(0).max(150).optional(),
  max_age: z.number().int().min(0).max(150).optional(),
  interests: z.array(z.string().max(100)).max(50).optional(),
});

export const Restrictions = z.object({
  min_age: z.number().int().min(0).max(150).optional(),
  limit_per_customer: boundedInt(1, 1_000_000).optional(),
  limit_per_order: boundedInt(1, 1_000_000).optional(),
  new_customers_only: z.boolean().optional(),
  appointment_required: z.boolean().optional(),
  online_redemption: z.boolean().optional(),
  valid_days: z
    .array(z.enum(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']))
    .max(7)
    .optional(),
  notes: z.string().max(2000).optional(),
});

export const BundleItem = z.object({
  title: z.string().min(1).max(200),
  quantity: boundedInt(1, 1_000_000),
  value: Currency.optional(),
});

/** When vouchers expire: on a fixed date (the spec's `on`) or a number of days after purchase. */
const expiration = (day: Day) =>
  z
    .object({ on: day.optional(), days_after_purchase: z.number().int().min(1).max(3650).optional() })
    .refine((e) => (e.on === undefined) !== (e.days_after_purchase === undefined), {
      message: 'give exactly one of `on` or `days_after_purchase`',
    });
export const Expiration = expiration(DateString);
/** The same as an answer shows a stored one. */
export const StoredExpiration = expiration(CalendarDate);

export const Creative = z.object({
  requires_editorial_support: z.boolean().default(false),
  headlines: z.array(z.string().min(1).max(200)).max(10).default([]),
  description: z.string().max(10_000).optional(),
  original_media: z
    .array(z.object({ id: z.string().min(1).max(64) }))
    .max(20)
    .default([]),
});

export const Advertiser = z.object({
  /** An existing advertiser of yours (GET /advertisers); without it the advertiser is found or created by name. */
  id: IdParam.optional(),
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5000).optional(),
  categories: z
    .array(z.object({ id: boundedInt(1, PG_INTEGER_MAX) }))
    .max(20)
    .default([]),
  redemption_locations: z.array(RedemptionLocation).max(500).default([]),
  website_url: HttpUrl.optional(),
  public_phone: z.string().max(50).optional(),
});

/**
 * A voucher code the advertiser supplies (spec 2.1 `vouchers`). Letters, digits, `-` and `_`, so a
 * code or barcode can stand in the `/advertisers/:advertiser_id/vouchers/:code` path and in a Code 128 barcode.
 */
const VoucherCode = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _');
export const SuppliedVoucherInput = z.object({ redemption_code: VoucherCode, barcode: VoucherCode.optional() });
export const MAX_SUPPLIED_VOUCHERS = 20_000;

/** A supplied code as the submission offer answers it: `available` until sold, then its voucher's status. */
export const SuppliedVoucher = z.object({
  id: z.string(),
  redemption_code: z.string(),
  /** The advertiser's barcode, else the code: the same value the voucher carries once sold (domain/barcodes.ts). */
  barcode: z.string(),
  status: z.enum(['available', 'acquired', 'redeemed', 'cancelled']),
  redeemed_at: Timestamp.nullable(),
  cancelled_at: Timestamp.nullable(),
});
export type SuppliedVoucher = z.output<typeof SuppliedVoucher>;

export const CustomAttribute = z.object({ name: z.string().min(1).max(100), value: z.string().max(2000) });

/** Every field an advertiser writes. Which are required is decided in `OfferInput` below. */
export const offerFields = {
  title: z.string().trim().min(1).max(200),
  type: OfferType,
  price: Currency.optional(),
  value: Currency.optional(),
  discount: Discount.optional(),
  fine_print: z.string().max(10_000).optional(),
  start_date: DateString,
  end_date: DateString,
  items: z.array(BundleItem).max(50).optional(),
  checkins_required: boundedInt(1, 1000).optional(),
  vouchers_activation_date: DateString.optional(),
  vouchers_expire: Expiration.optional(),
  creative: Creative.default({ requires_editorial_support: false, headlines: [], original_media: [] }),
  demographics: Demographics.optional(),
  restrictions: Restrictions.optional(),
  advertiser: Advertiser,
  exclusivity: Exclusivity.optional(),
  initial_quantity: z.number().int().min(0).max(10_000_000).optional(),
  advertiser_rebate: Currency.optional(),
  custom_attributes: z.array(CustomAttribute).max(100).default([]),
  /** The advertiser's own codes: the offer then sells exactly these (docs/vouchers.md). */
  vouchers: z.array(SuppliedVoucherInput).min(1).max(MAX_SUPPLIED_VOUCHERS).optional(),
};

type OfferDraft = z.infer<z.ZodObject<typeof offerFields>>;

/** What is wrong when supplied codes repeat a redemption_code, or undefined when none does. */
export function repeatedCodes(codes: ReadonlyArray<{ redemption_code: string }>): string | undefined {
  const seen = new Set<string>();
  const repeated = [...new Set(codes.map((v) => v.redemption_code).filter((c) => seen.has(c) || !seen.add(c)))];
  if (repeated.length === 0) return undefined;
  return `a redemption_code appears more than once: ${repeated.slice(0, 20).join(', ')}${repeated.length > 20 ? ', …' : ''}`;
}

/** Cross-field rules, each reported on the field a client must fix. */
export function offerRules(o: OfferDraft, ctx: z.RefinementCtx) {
  const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  if (o.end_date < o.start_date) issue(['end_date'], 'end_date must not be before start_date');
  if (o.type !== 'coupon') {
    if (!o.price) issue(['price'], `price is required for a ${o.type}`);
    if (o.initial_quantity === undefined && !o.vouchers)
      issue(['initial_quantity'], `initial_quantity (the stock) is required for a ${o.type}, unless you supply its vouchers`);
  }
  if (o.vouchers) {
    if (o.initial_quantity !== undefined && o.initial_quantity !== o.vouchers.length)
      issue(['initial_quantity'], `initial_quantity must equal the number of supplied vouchers (${o.vouchers.length}), or be left out`);
    const repeated = repeatedCodes(o.vouchers);
    if (repeated) issue(['vouchers'], repeated);
  }
  if (o.checkins_required !== undefined && o.type !== 'coupon') issue(['checkins_required'], 'checkins_required applies to coupons only');
  if (o.items && o.type !== 'deal') issue(['items'], 'items (bundle contents) apply to deals only');
  if (o.price && o.value && o.price.currency_code !== o.value.currency_code)
    issue(['value', 'currency_code'], 'value must be in the same currency as price');
  if (o.price && o.value && o.value.amount < o.price.amount) issue(['value', 'amount'], 'value must not be below price');
  // Judged on the day of the request: an offer (created, or edited while withdrawn) never sells expired vouchers.
  const expiry = vouchersExpireProblem(o, utcDay());
  if (expiry) issue(['vouchers_expire', 'on'], expiry);
  if (o.exclusivity?.exclusive && !o.exclusivity.channels?.length)
    issue(['exclusivity', 'channels'], 'an exclusive offer names the distribution client ids it is exclusive to (at least one)');
  if (o.demographics?.min_age !== undefined && o.demographics.max_age !== undefined && o.demographics.min_age > o.demographics.max_age) {
    issue(['demographics', 'max_age'], 'max_age must not be below min_age');
  }
}

/** A complete offer as created (POST) or as it stands after an edit merged into it (PUT). */
export const OfferInput = z.object(offerFields).superRefine(offerRules);
export type OfferInput = z.infer<typeof OfferInput>;

/** PUT body: either `{status}` alone, or changed fields (merged into the offer, then checked whole). */
export const OfferUpdate = z
  .object({
    status: z.enum(CLIENT_STATUSES).optional(),
    ...Object.fromEntries(Object.entries(offerFields).map(([k, v]) => [k, v.optional()])),
    // Without their defaults: a field the client did not send must not count as changed.
    creative: Creative.optional(),
    custom_attributes: z.array(CustomAttribute).max(100).optional(),
  })
  .refine((u) => u.status === undefined || Object.keys(u).length === 1, {
    message: 'status is changed alone: send {offer:{status}} without other fields',
    path: ['status'],
  })
  .refine((u) => Object.keys(u).length > 0, { message: 'nothing to change' });
export type OfferUpdate = Partial<OfferInput> & { status?: (typeof CLIENT_STATUSES)[number] };

export const OfferUpdateBody = wrappedBody('offer', OfferUpdate);

const readOnly = {
  id: z.string(),
  status: OfferStatus,
  quantity_in_stock: z.number().int().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Timestamp.nullable(),
};

/** The date fields as an answer shows them (stored days, unbounded: see `Day`). */
const storedDays = {
  start_date: CalendarDate,
  end_date: CalendarDate,
  vouchers_activation_date: CalendarDate.optional(),
  vouchers_expire: StoredExpiration.optional(),
  exclusivity: exclusivity(CalendarDate).optional(),
};

/** The offer as the submission interface shows it to the advertiser who owns it. */
export const SubmissionOffer = z.object({
  ...readOnly,
  ...offerFields,
  ...storedDays,
  creative: Creative,
  advertiser: Advertiser.extend({ id: z.string() }),
  /** For an offer with supplied codes: the first of them in upload order (all: GET /offers/:id/supplied_vouchers). */
  vouchers: z.array(SuppliedVoucher).optional(),
  /** For an offer with supplied codes: how many were supplied, and how many are not sold yet. */
  vouchers_count: z.object({ total: z.number().int(), available: z.number().int() }).optional(),
  reserved_quantity: z.number().int(),
  /**
   * Positions (from 0) in `advertiser.redemption_locations` of the locations radius searches
   * cannot find: neither coordinates were given nor could their postal code or city be placed.
   * Empty when every location is placed (a location naming only its country is nationwide, not a point).
   */
  unplaced_locations: z.array(z.number().int()),
  submitted_at: Timestamp,
  reviewed_at: Timestamp.nullable(),
  rejection_reason: z.string().nullable(),
  published_at: Timestamp.nullable(),
});
export type SubmissionOffer = z.output<typeof SubmissionOffer>;

export const SubmissionOfferResponse = okEnvelope('offer', SubmissionOffer);
export const SubmissionOfferList = listEnvelope('offers', SubmissionOffer);

export const SuppliedVoucherList = listEnvelope('vouchers', SuppliedVoucher);

export const SubmissionOfferListQuery = PageQuery.extend({
  status: z
    .string()
    .transform((s) => s.split(',').map((x) => x.trim()))
    .pipe(z.array(OfferStatus))
    .optional(),
  type: z
    .string()
    .transform((s) => s.split(',').map((x) => x.trim()))
    .pipe(z.array(OfferType))
    .optional(),
});
