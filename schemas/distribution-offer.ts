import { z } from 'zod';
import { CalendarDate, Currency, once, queryInt, singleQueryValue } from './common';
import { boundedListEnvelope, okEnvelope } from './envelope';
import { Advertiser, BundleItem, Creative, Demographics, Discount, OfferStatus, OfferType, Restrictions, StoredExpiration } from './offer';
import { PageQuery } from './pagination';
import { decodeSearchCursor } from './search-cursor';
import {
  DEFAULT_RADIUS_MILES,
  MAX_RADIUS_MILES,
  MAX_RECENT_DAYS,
  SEARCH_TOTAL_BOUND,
  SORT_FIELDS,
  type SortBy,
  type SortField,
} from '../domain/offer-search';
import { MATCHED_FIELDS, MAX_QUERY_LENGTH } from '../domain/keyword-search';

/*
 * The offer as publishers see it on the distribution interface (spec §2.1: the common fields plus
 * the distribution attributes; never the submission-only ones), and the search query of §4.2
 * completed as docs/distribution-offers.md and docs/distribution-search.md describe.
 */

/** ISO 8601 timestamps in UTC, already strings (toDistributionOffer formats them). */
const Time = z.string();

/**
 * One of the offer's media as publishers see it: where to fetch its bytes (with the same API key)
 * and what they are. `url` is absent only where no request address is known (callback bodies) or
 * the advertiser has deleted the file since.
 */
export const DistributionMedium = z.object({
  id: z.string(),
  url: z.string().optional().describe('Absolute URL of GET /offers/:id/media/:media_id, which serves the bytes'),
  content_type: z.string().optional(),
  width: z.number().int().nullable().optional().describe('Pixels, for images whose header could be read; else null'),
  height: z.number().int().nullable().optional(),
});
export type DistributionMedium = z.infer<typeof DistributionMedium>;

export const DistributionOffer = z.object({
  id: z.string(),
  sku: z.string(),
  title: z.string(),
  type: OfferType,
  status: OfferStatus,
  price: Currency.optional(),
  value: Currency.optional(),
  discount: Discount.optional(),
  fine_print: z.string().optional(),
  start_date: CalendarDate,
  end_date: CalendarDate,
  items: z.array(BundleItem).optional(),
  checkins_required: z.number().int().optional(),
  vouchers_activation_date: CalendarDate.optional(),
  vouchers_expire: StoredExpiration.optional(),
  /** Units a publisher can still sell; null = unlimited. */
  quantity_in_stock: z.number().int().nullable(),
  creative: Creative.extend({ original_media: z.array(DistributionMedium) }),
  demographics: Demographics.optional(),
  restrictions: Restrictions.optional(),
  advertiser: Advertiser.extend({ id: z.string() }),
  /** What the distributor earns per unit sold; null for offers without a price (free coupons). */
  distributor_revenue: Currency.nullable(),
  /** The part of distributor_revenue passed on to the distributor's account (publisher). */
  account_revenue: Currency.nullable(),
  /** Miles from the search centre to the nearest redemption location; only in radius searches. */
  distance: z.number().optional(),
  /** Keyword searches only: each field where a word of `q` is, with a fragment of it. */
  matched: z
    .array(
      z.object({
        field: z.enum(MATCHED_FIELDS),
        fragment: z.string().describe("HTML: the field's text (escaped) around the match, each matched word in <em>…</em>"),
      }),
    )
    .optional()
    .describe('Keyword searches (q) only: the fields a word of q matched in, best field first'),
  published_at: Time.nullable(),
  updated_at: Time,
  /** When the offer left the catalogue for good or for now; null while it is on sale. */
  closed_at: Time.nullable(),
});
export type DistributionOffer = z.infer<typeof DistributionOffer>;

export const DistributionOfferResponse = okEnvelope('offer', DistributionOffer);
/** The search's answer: its `total` is bounded (docs/distribution-search.md). */
export const DistributionOfferList = boundedListEnvelope('offers', DistributionOffer, SEARCH_TOTAL_BOUND);

/**
 * `a,b,c` (or the parameter repeated) → a list of 1 to 50 items, each checked by `item`. A bad item
 * is reported on the parameter itself (`types`, not `types[0]`): that is what the client sent.
 */
function csv<T extends z.ZodType<unknown, string>>(item: T) {
  return z.preprocess(
    (v) => (Array.isArray(v) ? v.join(',') : v),
    z.string().transform((s, ctx): z.output<T>[] => {
      const parts = s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      if (parts.length === 0 || parts.length > 50) {
        ctx.addIssue({ code: 'custom', message: 'must name 1 to 50 comma-separated values' });
        return z.NEVER;
      }
      const out: z.output<T>[] = [];
      for (const part of parts) {
        const r = item.safeParse(part);
        if (!r.success) {
          ctx.addIssue({ code: 'custom', message: `${JSON.stringify(part.slice(0, 40))}: ${r.error.issues[0]?.message ?? 'invalid'}` });
          return z.NEVER;
        }
        out.push(r.data as z.output<T>);
      }
      return out;
    }),
  );
}

const categoryIds = csv(
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be comma-separated category ids')
    .transform(Number),
);

/** `price asc`, `price+asc` or `price` (ascending; `relevance`: best first, descending only): field from the allow-list, then direction. */
const SortByParam = z
  .string()
  .max(50)
  .transform((s, ctx): SortBy => {
    const [field, direction = field === 'relevance' ? 'desc' : 'asc', ...rest] = s.trim().split(/[\s+]+/);
    const dir = direction.toLowerCase();
    if (field === 'relevance' && dir === 'asc') {
      ctx.addIssue({ code: 'custom', message: 'relevance sorts the best match first only: "relevance" or "relevance desc"' });
      return z.NEVER;
    }
    if (!(SORT_FIELDS as readonly string[]).includes(field) || (dir !== 'asc' && dir !== 'desc') || rest.length) {
      ctx.addIssue({
        code: 'custom',
        message: `must be "<field> <direction>" with field one of ${SORT_FIELDS.join(', ')} and direction asc or desc`,
      });
      return z.NEVER;
    }
    return { field: field as SortField, direction: dir };
  });

/**
 * A decimal number in the query string, given once: plain digits with an optional fraction
 * (`2.5`, `-73.98`); an empty value, `0x10` or `1e2` is an error, not a number. Only plain decimals
 * are turned into numbers before the schema sees them (as queryInt does for integers), so the
 * OpenAPI documents a number with its bounds and typed clients pass one.
 */
const num = (bounds: (n: z.ZodNumber) => z.ZodNumber) =>
  z.preprocess(
    singleQueryValue(plainDecimal),
    bounds(z.number({ error: (i) => (i.code === 'invalid_type' ? 'must be a number in decimal digits, such as 2.5' : undefined) })),
  );
const plainDecimal = (v: unknown) =>
  typeof v === 'string' && /^-?(\d{1,12}(\.\d{0,15})?|\.\d{1,15})$/.test(v.trim()) ? Number(v.trim()) : v;
const latitude = num((n) => n.min(-90).max(90));
const longitude = num((n) => n.min(-180).max(180));
const days = queryInt(1, MAX_RECENT_DAYS);
const text = (max: number) => once(z.string().trim().min(1).max(max));

/** GET /offers on the distribution interface: every filter is optional; see docs/distribution-search.md. */
export const DistributionOfferQuery = PageQuery.extend({
  q: once(
    z
      .string()
      .max(MAX_QUERY_LENGTH, `must be at most ${MAX_QUERY_LENGTH} characters`)
      // Blank is no keyword search (a search box left empty), not a search for nothing.
      .transform((s) => (s.trim() ? s : undefined)),
  )
    .describe(
      `Keywords (at most ${MAX_QUERY_LENGTH} characters): offers whose title, headlines, description, fine print, advertiser name or category names hold every word (stemmed, accents ignored, typos tolerated, the last word also as a prefix); sorted by relevance unless sort_by says otherwise. See docs/distribution-search.md`,
    )
    .optional(),
  postal_code: text(20)
    .describe(
      'Centre of a radius search: a US ZIP or Canadian postal code, or one imported from GeoNames; unknown → 422 listing the countries known',
    )
    .optional(),
  radius: num((n) => n.gt(0).max(MAX_RADIUS_MILES))
    .describe(`Miles around the centre, > 0, ≤ ${MAX_RADIUS_MILES}; default ${DEFAULT_RADIUS_MILES}`)
    .optional(),
  lat: latitude.describe('Centre latitude (with lng)').optional(),
  lng: longitude.describe('Centre longitude (with lat)').optional(),
  latitude: latitude.describe('Centre latitude (with longitude); alias of lat').optional(),
  longitude: longitude.describe('Centre longitude (with latitude); alias of lng').optional(),
  city: text(100)
    .describe(
      'Offers with a redemption location in this city (case-insensitive); with radius and no other centre, the centre (with state_code, country_code); unknown → 422',
    )
    .optional(),
  state_code: text(10)
    .describe('Offers with a redemption location in this state (case-insensitive); with a city centre, the state of that city')
    .optional(),
  country_code: once(
    z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as US')
      .transform((c) => c.toUpperCase()),
  )
    .describe('ISO 3166-1 alpha-2; alone: nationwide offers (docs/distribution-search.md)')
    .optional(),
  types: csv(OfferType).describe('Comma-separated offer types: deal, coupon, gift_card').optional(),
  categories: categoryIds.describe('Comma-separated category ids; a parent matches its sub-categories').optional(),
  category_ids: categoryIds.describe('Alias of categories; the ids of both are merged').optional(),
  sort_by: once(SortByParam)
    .describe(`"<field> <direction>", field one of ${SORT_FIELDS.join(', ')}; direction asc or desc`)
    .optional(),
  recently_published: days.describe(`Visible offers first published in the last N days (1–${MAX_RECENT_DAYS})`).optional(),
  recently_updated: days.describe('Visible offers changed in the last N days').optional(),
  recently_closed: days.describe('Offers that left the catalogue in the last N days (the only non-visible results)').optional(),
  after: once(
    z.string().refine((c) => decodeSearchCursor(c) !== null, 'is not a cursor of this search: send a next_cursor as it was given'),
  )
    .describe(
      'Continue after this cursor: the next_cursor of the page before, with the same query (not with a page number). Opaque; see docs/distribution-search.md',
    )
    .optional(),
}).superRefine((q, ctx) => {
  const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
  const short = q.lat !== undefined || q.lng !== undefined;
  const long = q.latitude !== undefined || q.longitude !== undefined;
  if (short && long) issue('latitude', 'give lat/lng or latitude/longitude, not both');
  if (short && (q.lat === undefined || q.lng === undefined)) issue(q.lat === undefined ? 'lat' : 'lng', 'lat and lng go together');
  if (long && (q.latitude === undefined || q.longitude === undefined))
    issue(q.latitude === undefined ? 'latitude' : 'longitude', 'latitude and longitude go together');
  const coordinates = short || long;
  if (coordinates && q.postal_code !== undefined) issue('postal_code', 'give one centre: postal_code or coordinates, not both');
  const centre = coordinates || q.postal_code !== undefined || q.city !== undefined;
  if (q.radius !== undefined && !centre) issue('radius', 'radius needs a centre: postal_code, lat/lng, latitude/longitude or city');
  if (q.sort_by?.field === 'relevance' && q.q === undefined) issue('sort_by', 'sorting by relevance needs keywords: q');
  if (q.sort_by?.field === 'distance' && !centre)
    issue('sort_by', 'sorting by distance needs a centre: postal_code, lat/lng, latitude/longitude or city');
  if (q.after !== undefined && q.page > 1)
    issue(
      'after',
      'give page or after, not both: after continues where the page of its next_cursor ended, page counts from the first offer',
    );
});
export type DistributionOfferQuery = z.infer<typeof DistributionOfferQuery>;

/**
 * Whether `city` is the search's centre rather than a filter: the query asks for a radius search
 * (`radius` or `sort_by=distance`) and names no postal code or coordinates.
 */
export function wantsCityCentre(q: DistributionOfferQuery): q is DistributionOfferQuery & { city: string } {
  const otherCentre = q.postal_code !== undefined || q.lat !== undefined || q.latitude !== undefined;
  return q.city !== undefined && !otherCentre && (q.radius !== undefined || q.sort_by?.field === 'distance');
}
