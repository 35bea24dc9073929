import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { geocodePostalCode, type Coordinates } from './geocode';
import type { Database, OfferRow } from './database';
import type { Db } from './db';
import { SELLABLE } from '../domain/offer-lifecycle';
import { invalidField } from '../domain/failures';
import { addDays, utcDay } from '../domain/dates';
import { DEFAULT_RADIUS_MILES, type DistributionOffer, type DistributionOfferQuery, type SortBy } from '../schemas/distribution-offer';
import type { OfferInput, OfferStatus } from '../schemas/offer';
import { pageBounds } from '../schemas/pagination';

/*
 * The distribution read model and the offer search (docs/distribution-search.md). Visibility,
 * the nationwide rule, the revenue rule and the closing time are defined here once.
 */

/** Revenue shares in percent: of the price for the distributor, of that for its account. */
export interface RevenueShares {
  distributorPercent: number;
  accountPercent: number;
}
export const DEFAULT_REVENUE_SHARES: RevenueShares = { distributorPercent: 20, accountPercent: 50 };

export function revenueShares(config: { DISTRIBUTOR_REVENUE_PERCENT: number; ACCOUNT_REVENUE_PERCENT: number }): RevenueShares {
  return { distributorPercent: config.DISTRIBUTOR_REVENUE_PERCENT, accountPercent: config.ACCOUNT_REVENUE_PERCENT };
}

/** The SKU publishers file the offer under: the offer id's unique part, so it is stable and never reused. */
export function skuOf(offerId: string): string {
  return `OM-${offerId.slice(offerId.indexOf('_') + 1)}`;
}

/** Today's date in UTC, the day visibility is judged on. */

type Row = OfferRow & { distance?: number | null };

/**
 * When the offer left the catalogue, or null while it is visible (or not yet started): closed_at
 * once closed; else the last change for an offer taken off sale by its status or sold out; else the
 * start of the day after its end_date. `closedAtSql` is the same rule in SQL.
 */
export function distributionClosedAt(row: OfferRow, today = utcDay()): Date | null {
  if (row.closed_at) return new Date(row.closed_at);
  if (!SELLABLE.includes(row.status as OfferStatus)) return row.published_at ? new Date(row.updated_at) : null;
  if (row.end_date < today) return new Date(`${addDays(row.end_date, 1)}T00:00:00Z`);
  if (row.quantity_in_stock === 0) return new Date(row.updated_at);
  return null;
}

const iso = (t: Date | string) => new Date(t).toISOString();

function share(amount: number, percent: number): number {
  // Floor: a share never promises a cent more than the rule gives.
  return Math.floor((amount * percent) / 100);
}

/** The offer as the distribution interface shows it: common fields and distribution attributes only. */
export function toDistributionOffer(row: Row, shares: RevenueShares = DEFAULT_REVENUE_SHARES, today = utcDay()): DistributionOffer {
  const doc = row.document as OfferInput;
  const a = doc.advertiser;
  const distributor = doc.price ? share(doc.price.amount, shares.distributorPercent) : undefined;
  const closedAt = distributionClosedAt(row, today);
  return {
    id: row.id,
    sku: skuOf(row.id),
    title: doc.title,
    type: doc.type,
    status: row.status as OfferStatus,
    price: doc.price,
    value: doc.value,
    discount: doc.discount,
    fine_print: doc.fine_print,
    start_date: doc.start_date,
    end_date: doc.end_date,
    items: doc.items,
    checkins_required: doc.checkins_required,
    vouchers_activation_date: doc.vouchers_activation_date,
    vouchers_expire: doc.vouchers_expire,
    quantity_in_stock: row.quantity_in_stock,
    creative: doc.creative,
    demographics: doc.demographics,
    restrictions: doc.restrictions,
    advertiser: {
      id: row.advertiser_id,
      name: a.name,
      description: a.description,
      categories: a.categories,
      redemption_locations: a.redemption_locations,
      website_url: a.website_url,
      public_phone: a.public_phone,
    },
    distributor_revenue: doc.price && distributor !== undefined ? { currency_code: doc.price.currency_code, amount: distributor } : null,
    account_revenue:
      doc.price && distributor !== undefined
        ? { currency_code: doc.price.currency_code, amount: share(distributor, shares.accountPercent) }
        : null,
    ...(row.distance !== undefined && row.distance !== null ? { distance: Math.round(row.distance * 100) / 100 } : {}),
    published_at: row.published_at ? iso(row.published_at) : null,
    updated_at: iso(row.updated_at),
    closed_at: closedAt ? closedAt.toISOString() : null,
  };
}

type Eb = ExpressionBuilder<Database & { o: Database['offers'] }, 'o'>;

/** On sale now: sellable status, today within its dates, not closed, in stock (null stock = unlimited). */
function visible(eb: Eb, today: string): Expression<SqlBool> {
  return eb.and([
    eb('o.status', 'in', [...SELLABLE]),
    eb('o.start_date', '<=', today),
    eb('o.end_date', '>=', today),
    eb('o.closed_at', 'is', null),
    eb.or([eb('o.quantity_in_stock', 'is', null), eb('o.quantity_in_stock', '>', 0)]),
  ]);
}

/** distributionClosedAt in SQL, for recently_closed. */
function closedAtSql(today: string) {
  return sql<Date | null>`coalesce(o.closed_at, case
    when o.status not in ('approved', 'resumed') then o.updated_at
    when o.end_date < ${today}::date then (o.end_date + 1)::timestamp at time zone 'UTC'
    when o.quantity_in_stock = 0 then o.updated_at
  end)`;
}

const EARTH_RADIUS_MILES = 3958.7613;
const MILES_PER_DEGREE_LATITUDE = 69.0545;

/** Great-circle (haversine) distance in miles from the centre to a location row `l`. */
function haversine(c: Coordinates) {
  const lat = sql`${c.latitude}::float8`;
  const lng = sql`${c.longitude}::float8`;
  return sql<number>`${sql.lit(EARTH_RADIUS_MILES)} * 2 * asin(least(1, sqrt(
    power(sin(radians(l.latitude - ${lat}) / 2), 2)
    + cos(radians(${lat})) * cos(radians(l.latitude)) * power(sin(radians(l.longitude - ${lng}) / 2), 2)
  )))`;
}

/** The box around the circle; longitude degrees shrink with latitude (clamped near the poles). */
export function boundingBox(c: Coordinates, miles: number) {
  const dLat = miles / MILES_PER_DEGREE_LATITUDE;
  const cosLat = Math.max(Math.cos((c.latitude * Math.PI) / 180), 0.01);
  const dLng = Math.min(180, miles / (MILES_PER_DEGREE_LATITUDE * cosLat));
  return { minLat: c.latitude - dLat, maxLat: c.latitude + dLat, minLng: c.longitude - dLng, maxLng: c.longitude + dLng };
}

export interface SearchContext {
  today: string;
  now: Date;
  /** Every category id with its parent, for matching a parent's children. */
  categories: Array<{ id: number; parent_id: number | null }>;
}

/** The search centre, if any: a postal code (422 when unknown) or coordinates. */
export function searchCentre(q: DistributionOfferQuery): Coordinates | undefined {
  if (q.postal_code !== undefined) {
    const c = geocodePostalCode(q.postal_code);
    if (!c) throw invalidField('postal_code', `postal_code ${JSON.stringify(q.postal_code)} is not a known postal code`);
    return c;
  }
  if (q.lat !== undefined && q.lng !== undefined) return { latitude: q.lat, longitude: q.lng };
  if (q.latitude !== undefined && q.longitude !== undefined) return { latitude: q.latitude, longitude: q.longitude };
  return undefined;
}

/** The asked ids and all their descendants; an unknown id is a 422 naming its parameter. */
export function expandCategories(q: DistributionOfferQuery, all: SearchContext['categories']): number[] | undefined {
  if (!q.categories && !q.category_ids) return undefined;
  const known = new Set(all.map((c) => c.id));
  for (const field of ['categories', 'category_ids'] as const) {
    const bad = q[field]?.find((id) => !known.has(id));
    if (bad !== undefined) throw invalidField(field, `${field}: ${bad} is not a category id (see GET /categories)`);
  }
  const result = new Set([...(q.categories ?? []), ...(q.category_ids ?? [])]);
  for (let grew = true; grew;) {
    grew = false;
    for (const c of all) {
      if (c.parent_id !== null && result.has(c.parent_id) && !result.has(c.id)) {
        result.add(c.id);
        grew = true;
      }
    }
  }
  return [...result];
}

const SORT_COLUMNS: Record<Exclude<SortBy['field'], 'distance'>, string> = {
  price: 'o.price_amount',
  value: 'o.value_amount',
  discount: 'o.discount_percent',
  title: 'o.title',
  start_date: 'o.start_date',
  end_date: 'o.end_date',
  published_at: 'o.published_at',
  updated_at: 'o.updated_at',
};

/**
 * One page of the offers a publisher may see that match every filter, and their total. A radius
 * search keeps the redemption locations inside the bounding box (GiST index), then those within
 * the exact great-circle radius, and joins each offer with its nearest such location.
 */
export async function searchDistributionOffers(
  db: Db,
  q: DistributionOfferQuery,
  ctx: SearchContext,
): Promise<{ rows: Row[]; total: number }> {
  const centre = searchCentre(q);
  const categoryIds = expandCategories(q, ctx.categories);
  const state = q.state_code?.toUpperCase();
  const city = q.city?.toLowerCase();
  const country = q.country_code;
  const cutoff = (days: number) => new Date(ctx.now.getTime() - days * 86_400_000);

  let base = db.selectFrom('offers as o');
  if (centre) {
    const radius = q.radius ?? DEFAULT_RADIUS_MILES;
    const box = boundingBox(centre, radius);
    const distance = haversine(centre);
    let inBox = db
      .selectFrom('offer_locations as l')
      .select(['l.offer_id', distance.as('d')])
      .where(sql<SqlBool>`l.latitude is not null and l.longitude is not null`)
      .where(
        sql<SqlBool>`point(l.longitude, l.latitude) <@ box(point(${box.minLng}::float8, ${box.minLat}::float8), point(${box.maxLng}::float8, ${box.maxLat}::float8))`,
      );
    if (country) inBox = inBox.where('l.country_code', '=', country);
    if (state) inBox = inBox.where('l.state_code', '=', state);
    if (city) inBox = inBox.where('l.city', '=', city);
    // The distance is computed once per location in the box, then filtered and reduced to the nearest.
    const near = db
      .selectFrom(inBox.as('b'))
      .select(['b.offer_id', sql<number>`min(b.d)`.as('distance')])
      .where('b.d', '<=', sql<number>`${radius}::float8`);
    base = base.innerJoin(near.groupBy('b.offer_id').as('near'), 'near.offer_id', 'o.id') as unknown as typeof base;
  }

  const query = base.where((eb) => {
    const conditions: Expression<SqlBool>[] = [];
    if (!centre && (city || state)) {
      let place = eb
        .selectFrom('offer_locations as l')
        .select(sql`1`.as('one'))
        .whereRef('l.offer_id', '=', 'o.id');
      if (country) place = place.where('l.country_code', '=', country);
      if (state) place = place.where('l.state_code', '=', state);
      if (city) place = place.where('l.city', '=', city);
      conditions.push(eb.exists(place));
    } else if (!centre && country) {
      // Nationwide: redeemable anywhere in the country (a location naming only the country), or anywhere at all (no location).
      // Uncorrelated IN / NOT IN become hashed subplans: one pass over the locations, not one probe per offer.
      const located = eb.selectFrom('offer_locations as l').select('l.offer_id');
      const countryWide = located
        .where('l.country_code', '=', country)
        .where('l.postal_code', 'is', null)
        .where('l.city', 'is', null)
        .where('l.state_code', 'is', null);
      conditions.push(eb.or([eb('o.id', 'not in', located), eb('o.id', 'in', countryWide)]));
    }
    if (q.types) conditions.push(eb('o.type', 'in', q.types));
    if (categoryIds) {
      conditions.push(
        eb.exists(
          eb
            .selectFrom('offer_categories as oc')
            .select(sql`1`.as('one'))
            .whereRef('oc.offer_id', '=', 'o.id')
            .where('oc.category_id', 'in', categoryIds),
        ),
      );
    }
    // recently_*: each names a set of changes; several together return their union.
    const recent: Expression<SqlBool>[] = [];
    if (q.recently_published) recent.push(eb.and([visible(eb, ctx.today), eb('o.published_at', '>=', cutoff(q.recently_published))]));
    if (q.recently_updated) recent.push(eb.and([visible(eb, ctx.today), eb('o.updated_at', '>=', cutoff(q.recently_updated))]));
    if (q.recently_closed) {
      recent.push(eb.and([eb('o.published_at', 'is not', null), eb(closedAtSql(ctx.today), '>=', cutoff(q.recently_closed))]));
    }
    conditions.push(recent.length ? eb.or(recent) : visible(eb, ctx.today));
    return eb.and(conditions);
  });

  const sort: SortBy = q.sort_by ?? (centre ? { field: 'distance', direction: 'asc' } : { field: 'published_at', direction: 'desc' });
  const sortKey = sort.field === 'distance' ? sql.ref('near.distance') : sql.ref(SORT_COLUMNS[sort.field]);
  const nulls = sort.direction === 'asc' ? sql`asc nulls last` : sql`desc nulls last`;
  const { limit, offset } = pageBounds(q);
  // The page is chosen on narrow rows (id, sort key, distance); only its offers are read whole.
  const page = query
    .select(['o.id', centre ? sql<number>`near.distance`.as('distance') : sql<null>`null::float8`.as('distance')])
    .orderBy(sql`${sortKey} ${nulls}`)
    .orderBy('o.id')
    .limit(limit)
    .offset(offset);
  const countAll = () => query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  let hits: Array<{ id: string; distance: number | null; total?: number }>;
  let total: number;
  if (centre) {
    // A radius search reads every match anyway (to sort them), so the total comes from the same pass.
    hits = await page.select(sql<number>`count(*) over ()`.as('total')).execute();
    total = hits.length ? Number(hits[0].total) : offset > 0 ? (await countAll()).n : 0;
  } else {
    const [h, count] = await Promise.all([page.execute(), countAll()]);
    hits = h;
    total = count.n;
  }
  if (hits.length === 0) return { rows: [], total };
  const full = await db
    .selectFrom('offers')
    .selectAll()
    .where(
      'id',
      'in',
      hits.map((x) => x.id),
    )
    .execute();
  const byId = new Map(full.map((r) => [r.id, r]));
  const rows = hits.flatMap((x) => (byId.has(x.id) ? [{ ...byId.get(x.id)!, distance: x.distance }] : []));
  return { rows, total };
}

/** One offer a publisher may see now; undefined (→ 404) for unknown or invisible ids. */
export function findVisibleOffer(db: Db, id: string, today: string): Promise<OfferRow | undefined> {
  return db
    .selectFrom('offers as o')
    .selectAll('o')
    .where('o.id', '=', id)
    .where((eb) => visible(eb, today))
    .executeTakeFirst();
}

/** The category tree, for matching a parent category's children. */
export function categoryTree(db: Db) {
  return db.selectFrom('categories').select(['id', 'parent_id']).execute();
}
