import { z } from 'zod';
import { Currency, DateString, Location, Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';
import { PageQuery } from './pagination';
import { CLIENT_STATUSES, OFFER_STATUSES } from '../domain/offer-lifecycle';

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

export const Exclusivity = z.object({
  exclusive: z.boolean(),
  /** Distribution client ids or channel names the exclusivity is granted to. */
  channels: z.array(z.string().max(100)).max(50).optional(),
  until: DateString.optional(),
});

export const Demographics = z.object({
  gender: z.enum(['any', 'female', 'male']).optional(),
  min_age: z.number().int().min(0).max(150).optional(),
  max_age: z.number().int().min(0).max(150).optional(),
  interests: z.array(z.string().max(100)).max(50).optional(),
});

export const Restrictions = z.object({
  min_age: z.number().int().min(0).max(150).optional(),
  limit_per_customer: z.number().int().min(1).optional(),
  limit_per_order: z.number().int().min(1).optional(),
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
  quantity: z.number().int().min(1),
  value: Currency.optional(),
});

/** When vouchers expire: on a fixed date (the spec's `on`) or a number of days after purchase. */
export const Expiration = z
  .object({ on: DateString.optional(), days_after_purchase: z.number().int().min(1).max(3650).optional() })
  .refine((e) => (e.on === undefined) !== (e.days_after_purchase === undefined), {
    message: 'give exactly one of `on` or `days_after_purchase`',
  });

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
  name: z.string().min(1).max(200),
  description: z.string().max(5000).optional(),
  categories: z
    .array(z.object({ id: z.number().int() }))
    .max(20)
    .default([]),
  redemption_locations: z.array(Location).max(500).default([]),
  website_url: z.string().url().max(500).optional(),
  public_phone: z.string().max(50).optional(),
});

export const CustomAttribute = z.object({ name: z.string().min(1).max(100), value: z.string().max(2000) });

/** Every field an advertiser writes. Which are required is decided in `OfferInput` below. */
const offerFields = {
  title: z.string().trim().min(1).max(200),
  type: OfferType,
  price: Currency.optional(),
  value: Currency.optional(),
  discount: Discount.optional(),
  fine_print: z.string().max(10_000).optional(),
  start_date: DateString,
  end_date: DateString,
  items: z.array(BundleItem).max(50).optional(),
  checkins_required: z.number().int().min(1).optional(),
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
};

type OfferDraft = z.infer<z.ZodObject<typeof offerFields>>;

/** Cross-field rules, each reported on the field a client must fix. */
function offerRules(o: OfferDraft, ctx: z.RefinementCtx) {
  const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  if (o.end_date < o.start_date) issue(['end_date'], 'end_date must not be before start_date');
  if (o.type !== 'coupon') {
    if (!o.price) issue(['price'], `price is required for a ${o.type}`);
    if (o.initial_quantity === undefined) issue(['initial_quantity'], `initial_quantity (the stock) is required for a ${o.type}`);
  }
  if (o.checkins_required !== undefined && o.type !== 'coupon') issue(['checkins_required'], 'checkins_required applies to coupons only');
  if (o.items && o.type !== 'deal') issue(['items'], 'items (bundle contents) apply to deals only');
  if (o.price && o.value && o.price.currency_code !== o.value.currency_code)
    issue(['value', 'currency_code'], 'value must be in the same currency as price');
  if (o.price && o.value && o.value.amount < o.price.amount) issue(['value', 'amount'], 'value must not be below price');
  if (o.vouchers_expire?.on && o.vouchers_expire.on < o.start_date)
    issue(['vouchers_expire', 'on'], 'vouchers must not expire before the offer starts');
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

export const OfferCreateBody = wrappedBody('offer', OfferInput);
export const OfferUpdateBody = wrappedBody('offer', OfferUpdate);

const readOnly = {
  id: z.string(),
  status: OfferStatus,
  quantity_in_stock: z.number().int().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Timestamp.nullable(),
};

/** The offer as the submission interface shows it to the advertiser who owns it. */
export const SubmissionOffer = z.object({
  ...readOnly,
  ...offerFields,
  creative: Creative,
  advertiser: Advertiser.extend({ id: z.string() }),
  reserved_quantity: z.number().int(),
  submitted_at: Timestamp,
  reviewed_at: Timestamp.nullable(),
  rejection_reason: z.string().nullable(),
  published_at: Timestamp.nullable(),
});
export type SubmissionOffer = z.output<typeof SubmissionOffer>;

export const SubmissionOfferResponse = okEnvelope('offer', SubmissionOffer);
export const SubmissionOfferList = listEnvelope('offers', SubmissionOffer);

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
