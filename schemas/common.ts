import { z } from 'zod';
import { utcDay } from '../domain/dates';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/**
 * The largest value of a Postgres `integer` column (ids, quantities, positions): a bigger number in
 * a request must be a 422 naming its field, never the database's `value out of range` (a 500).
 */
export const PG_INTEGER_MAX = 2_147_483_647;

/** A count a client sends (quantities, limits): a whole number from `min` up to `max` (≤ PG_INTEGER_MAX). */
export const boundedInt = (min: number, max: number = PG_INTEGER_MAX) => z.number().int().min(min).max(max);

/** Money: integer minor units (cents) with an ISO 4217 code, so no float ever rounds a price. */
export const Currency = z.object({
  currency_code: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')
    .refine((c) => CURRENCIES.has(c), 'is not an ISO 4217 currency'),
  amount: z.number().int('must be an integer number of minor units (cents)').min(0, 'must not be negative').max(Number.MAX_SAFE_INTEGER),
});
export type Currency = z.infer<typeof Currency>;

function isRealDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && utcDay(d) === s;
}

/** `YYYY-MM-DD`, a real calendar day. */
export const DateString = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine(isRealDate, 'is not a real calendar date');

/** Timestamps leave as ISO 8601 strings in UTC (a Date serializes so in JSON and in XML). */
/** A stored time as the API writes it: ISO 8601 in UTC. */
export const iso = (t: Date | string): string => new Date(t).toISOString();
/** The same for a time that may be unset. */
export const isoOrNull = (t: Date | string | null | undefined): string | null => (t == null ? null : iso(t));

export const Timestamp = z.union([z.date(), z.string().datetime({ offset: true })]);

/**
 * A link a client gives us to show to others (website_url): http or https only, so a stored
 * `javascript:` or `data:` URL can never become a script in a page that renders it.
 */
export const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).max(500);

export const Location = z.object({
  address_line_1: z.string().max(200).optional(),
  address_line_2: z.string().max(200).optional(),
  city: z.string().max(100).optional(),
  state_code: z.string().max(10).optional(),
  postal_code: z.string().max(20).optional(),
  country_code: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as US')
    .optional(),
});
export type Location = z.infer<typeof Location>;

/**
 * An offer's redemption location: an address, and optionally where it is (WGS 84 degrees). Given
 * coordinates place the location in radius searches instead of its postal code, so a location
 * our postal-code data does not know can still be found. Both or neither: half a point is no point.
 */
export const RedemptionLocation = Location.extend({
  latitude: z.number().min(-90).max(90).optional(),
  longitude: z.number().min(-180).max(180).optional(),
}).superRefine((loc, ctx) => {
  if ((loc.latitude === undefined) !== (loc.longitude === undefined))
    ctx.addIssue({
      code: 'custom',
      path: [loc.latitude === undefined ? 'latitude' : 'longitude'],
      message: 'latitude and longitude are given together, or neither',
    });
});
export type RedemptionLocation = z.infer<typeof RedemptionLocation>;

/**
 * A resource id: the characters our ids are made of, bounded. In a path, anything else is a plain
 * 404 (the error handler maps path-parameter failures so), never a database error.
 */
export const IdParam = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not a valid id');
