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

/**
 * The largest money amount a client may send, in minor units (10 billion dollars in cents): prices
 * are `bigint` columns, and one amount (or a price × MAX_UNITS_PER_ORDER) stays an exact JSON
 * number (below 2^53). Sums over many orders have no such bound: the statements write them as
 * decimal strings (schemas/statement.ts StatementAmount, docs/statements.md "Money and rounding").
 */
export const MAX_MONEY_AMOUNT = 1_000_000_000_000;

/** Money: integer minor units (cents) with an ISO 4217 code, so no float ever rounds a price. */
export const Currency = z.object({
  currency_code: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')
    .refine((c) => CURRENCIES.has(c), 'is not an ISO 4217 currency'),
  amount: z.number().int('must be an integer number of minor units (cents)').min(0, 'must not be negative').max(MAX_MONEY_AMOUNT),
});
export type Currency = z.infer<typeof Currency>;

function isRealDate(s: string): boolean {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && utcDay(d) === s;
}

/**
 * The days a client may name, in every date field and date query parameter: Postgres' `date`
 * refuses year 0 (and an ISO year past 9999 does not fit YYYY), and no offer, voucher or
 * reservation of this business runs before 2000 or past 2999.
 */
export const DATE_MIN = '2000-01-01';
export const DATE_MAX = '2999-12-31';

/** `YYYY-MM-DD`, a real calendar day of any year: how a stored date is shown (answers only). */
export const CalendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date as YYYY-MM-DD', abort: true })
  .refine(isRealDate, { message: 'is not a real calendar date', abort: true });

/** A date a client sends: a real calendar day from DATE_MIN to DATE_MAX, so the database stores every one it accepts. */
export const DateString = CalendarDate.refine((s) => s >= DATE_MIN && s <= DATE_MAX, `must be from ${DATE_MIN} to ${DATE_MAX}`).describe(
  `A day as YYYY-MM-DD, from ${DATE_MIN} to ${DATE_MAX}`,
);

/**
 * An integer query parameter: plain decimal digits only (`0x10`, `1e2`, ` 5` and `5.0` are
 * refused, not read as 16, 100 or 5), from `min` to `max`, given at most once. `fallback` is the
 * value when the parameter is absent. Documented as an integer (the OpenAPI shows the inner number).
 */
export function queryInt(min: number, max: number, fallback?: number) {
  const n = z
    .number({ error: (i) => (i.code === 'invalid_type' ? 'must be a whole number in decimal digits, such as 25' : undefined) })
    .int()
    .min(min)
    .max(max);
  return z.preprocess(singleQueryValue(plainInteger), fallback === undefined ? n : n.default(fallback));
}

const plainInteger = (v: unknown) => (typeof v === 'string' && /^-?\d{1,16}$/.test(v) ? Number(v) : v);

/**
 * A query parameter that names one value: given twice (`per_page=5&per_page=6`) it is refused as
 * "must be given once" instead of failing as a list; `then` shapes the single value.
 */
export function singleQueryValue(then: (v: unknown) => unknown = (v) => v) {
  return (v: unknown, ctx: { addIssue(issue: { code: 'custom'; message: string }): void }) => {
    if (!Array.isArray(v)) return then(v);
    ctx.addIssue({ code: 'custom', message: 'must be given once' });
    return z.NEVER;
  };
}

/** A query parameter given once (repeated, it is "must be given once", not a list), checked by `schema`. */
export const once = <T extends z.ZodType>(schema: T) => z.preprocess(singleQueryValue(), schema);

/** Timestamps leave as ISO 8601 strings in UTC (a Date serializes so in JSON and in XML). */
/** A stored time as the API writes it: ISO 8601 in UTC. */
export const iso = (t: Date | string): string => new Date(t).toISOString();
/** The same for a time that may be unset. */
export const isoOrNull = (t: Date | string | null | undefined): string | null => (t == null ? null : iso(t));

export const Timestamp = z.union([z.date(), z.string().datetime({ offset: true })]);

/**
 * A latitude or longitude in degrees, within ±`limit`. Zero, or at least 0.0000001 in magnitude
 * (about 1 cm): Postgres stores any double, but a few locations a hair above zero (1e-200) make the
 * point index's area arithmetic underflow, and every later location insert then fails.
 */
const coordinate = (limit: number) =>
  z
    .number()
    .min(-limit)
    .max(limit)
    .refine((v) => v === 0 || Math.abs(v) >= 1e-7, 'must be 0 or at least 0.0000001 in magnitude (7 decimal places, about 1 cm)');

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
  latitude: coordinate(90).optional(),
  longitude: coordinate(180).optional(),
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

/** The path parameters of a route under one resource: `/…/:id`. */
export const IdParams = z.object({ id: IdParam });
