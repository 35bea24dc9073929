import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from './database';
import type { Db } from './db';
import type { SearchPlan } from '../domain/search-plan';
import type { BoundedPaged } from '../domain/paging';
import { rowMatches, type VisibilityFilters } from './distribution-visibility';
import { firstOfItsOffer, inPlace } from './distribution-locations';
import { countCandidates, keywordCandidates } from './distribution-keywords';

/*
 * The offer search's total, counted up to a bound (docs/distribution-search-design.md "Bounded count"):
 * from the rows plan.count names, each offer once, reading at most the bound's matches and one.
 */

/** Location rows (`l`), joined to their offers (`o`) or not: what the counts and a radius search's pages read. */
export type LocationRows = SelectQueryBuilder<Database & { l: Database['offer_locations'] }, 'l', object>;
/** Search rows reduced to the offer each is of. */
type OfferIdRows = SelectQueryBuilder<any, any, { offer_id: string }>;

/** A search's total: exact (`eq`) up to its bound, else the bound (`gte`). */
export type Total = Omit<BoundedPaged<never>, 'rows'>;

/** The queries of one search (store/distribution-search.ts searchQueries). */
export interface SearchQueries {
  db: Db;
  s: VisibilityFilters;
  plan: SearchPlan;
  /** The offers (`o`) matching every filter. */
  offers: SelectQueryBuilder<Database & { o: Database['offers'] }, 'o', object>;
  /** Location rows matching these conditions on them and every other filter. */
  locations: (conditions: Expression<SqlBool>[]) => LocationRows;
  /** A radius search's locations in the circle (on the KNN index's box when `knn`), and the same at each offer's nearest one. */
  inTheCircle: (knn: boolean) => LocationRows;
  located: (knn: boolean) => LocationRows;
}

/**
 * The search's total, from the rows its plan names: a state or city from its locations (each offer
 * at its first one there), not by probing every offer in the sort's order for a location in the
 * place; categories from their category rows (each offer at the first asked category it is filed
 * under); a circle from its locations (at the nearest); keywords by relevance, their candidates
 * (store/distribution-keywords.ts); anything else from the offers.
 */
export function countMatches(q: SearchQueries): Promise<Total> {
  const { db, s, plan } = q;
  switch (plan.count) {
    case 'place-locations': {
      const rows = q.locations(inPlace('l', plan.place));
      return countOffersOfRows(db, rows.select('l.offer_id'), rows.where(firstOfItsOffer(db, plan.place)).select('l.offer_id'), plan.bound);
    }
    case 'categories': {
      const ids = sql.val([...s.categoryIds!]);
      const rows = db
        .selectFrom('offer_categories as c')
        .where(sql<SqlBool>`c.category_id = any(${ids}::int[])`)
        .where((eb) => eb.and(rowMatches('c', s)));
      const firstAsked = sql<SqlBool>`not exists (select 1 from unnest(c.category_ids) x where x = any(${ids}::int[]) and x < c.category_id)`;
      return countOffersOfRows(db, rows.select('c.offer_id'), rows.where(firstAsked).select('c.offer_id'), plan.bound);
    }
    case 'circle':
      return countOffersOfRows(db, q.inTheCircle(false).select('l.offer_id'), q.located(false).select('l.offer_id'), plan.bound);
    case 'offers':
      return countUpTo(db, q.offers.select(sql`1`.as('one')), plan.bound);
    case 'keywords':
      return countCandidates(db, keywordCandidates(db, s, s.keywords!, plan), plan.bound);
  }
}

/**
 * How many offers `rows` (matching search rows: locations or categories) are of, counted up to
 * `bound` like countUpTo, without the per-row check that each offer is counted once
 * (`deduplicated`, one probe per row) where it cannot change the answer: the distinct offers of
 * the first `bound + 1` rows are exact when there were no more rows, and more than the bound when
 * each row was another offer. Only otherwise (an offer twice among them) the deduplicated count runs.
 */
async function countOffersOfRows(db: Db, rows: OfferIdRows, deduplicated: OfferIdRows, bound: number): Promise<Total> {
  const { n, offers } = await db
    .selectFrom(rows.limit(bound + 1).as('m'))
    .select([sql<string>`count(*)`.as('n'), sql<string>`count(distinct m.offer_id)`.as('offers')])
    .executeTakeFirstOrThrow();
  if (Number(n) <= bound) return { total: Number(offers), total_relation: 'eq' };
  if (Number(offers) > bound) return { total: bound, total_relation: 'gte' };
  return countUpTo(db, deduplicated, bound);
}

/** How many rows `matches` gives, reading at most `bound + 1` of them: exact up to `bound`, else `bound` as a lower bound. */
async function countUpTo(db: Db, matches: SelectQueryBuilder<any, any, object>, bound: number): Promise<Total> {
  const { n } = await db
    .selectFrom(matches.limit(bound + 1).as('m'))
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const count = Number(n);
  return count > bound ? { total: bound, total_relation: 'gte' } : { total: count, total_relation: 'eq' };
}
