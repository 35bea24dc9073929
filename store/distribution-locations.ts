import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from './db';
import type { Coordinates } from '../domain/offer-search';
import { boundingBox, EARTH_RADIUS_MILES, earthBoxRadius } from '../domain/search-geometry';
import type { Place } from '../domain/search-plan';

/*
 * The offer search's conditions on redemption locations (offer_locations, aliased `l`): in a place,
 * in a circle (the geometry of domain/search-geometry.ts in SQL, on the indexes of migrations 0031
 * and 0037), and each offer once among its locations.
 */

/** Great-circle (haversine) distance in miles from the centre to a location row aliased `alias`. */
export function haversine(c: Coordinates, alias = 'l') {
  const lat = sql`${c.latitude}::float8`;
  const lng = sql`${c.longitude}::float8`;
  const la = sql.ref(`${alias}.latitude`);
  const lo = sql.ref(`${alias}.longitude`);
  return sql<number>`${sql.lit(EARTH_RADIUS_MILES)} * 2 * asin(least(1, sqrt(
    power(sin(radians(${la} - ${lat}) / 2), 2)
    + cos(radians(${lat})) * cos(radians(${la})) * power(sin(radians(${lo} - ${lng}) / 2), 2)
  )))`;
}

/** A location as a point on the Earth (earthdistance's cube, GiST-indexed by migration 0031). */
export const earthPoint = (alias: string) => sql`ll_to_earth(${sql.ref(`${alias}.latitude`)}, ${sql.ref(`${alias}.longitude`)})`;
export const earthCentre = (c: Coordinates) => sql`ll_to_earth(${c.latitude}::float8, ${c.longitude}::float8)`;

/**
 * Conditions on a location `alias` (`l`) of a radius search: placed, inside the circle's bounding
 * box (the point GiST index; for a search sorted by distance, the Earth-cube box on the KNN index),
 * within the exact radius, and in the place filters.
 */
export function inCircle(alias: string, centre: Coordinates, radius: number, place: Place, knn = false): Expression<SqlBool>[] {
  const a = (column: string) => sql.ref(`${alias}.${column}`);
  const box = boundingBox(centre, radius);
  const conditions = [
    sql<SqlBool>`${a('latitude')} is not null and ${a('longitude')} is not null`,
    knn
      ? sql<SqlBool>`earth_box(${earthCentre(centre)}, ${earthBoxRadius(radius)}::float8 * earth()) @> ${earthPoint(alias)}`
      : sql<SqlBool>`point(${a('longitude')}, ${a('latitude')}) <@ box(point(${box.minLng}::float8, ${box.minLat}::float8), point(${box.maxLng}::float8, ${box.maxLat}::float8))`,
    sql<SqlBool>`${haversine(centre, alias)} <= ${radius}::float8`,
  ];
  return [...conditions, ...inPlace(alias, place)];
}

/** inCircle without the bounding box: a filter on rows read in another order (no point index). */
export function withinRadius(alias: string, centre: Coordinates, radius: number, place: Place): Expression<SqlBool>[] {
  const a = (column: string) => sql.ref(`${alias}.${column}`);
  return [
    sql<SqlBool>`${a('latitude')} is not null and ${a('longitude')} is not null`,
    sql<SqlBool>`${haversine(centre, alias)} <= ${radius}::float8`,
    ...inPlace(alias, place),
  ];
}

/** The place filters on a location `alias`. */
export function inPlace(alias: string, place: Place): Expression<SqlBool>[] {
  const a = (column: string) => sql.ref(`${alias}.${column}`);
  const conditions: Expression<SqlBool>[] = [];
  if (place.country) conditions.push(sql<SqlBool>`${a('country_code')} = ${place.country}`);
  if (place.state) conditions.push(sql<SqlBool>`${a('state_code')} = ${place.state}`);
  if (place.city) conditions.push(sql<SqlBool>`${a('city')} = ${place.city}`);
  return conditions;
}

/** Location `l` (in the place) is its offer's first one there, so counting locations counts each offer once. */
export function firstOfItsOffer(db: Db, place: Place): Expression<SqlBool> {
  const earlier = db
    .selectFrom('offer_locations as l2')
    .select(sql`1`.as('one'))
    .where(sql<SqlBool>`l2.offer_id = l.offer_id and l2.position < l.position`)
    .where((eb) => eb.and(inPlace('l2', place)));
  return sql<SqlBool>`not exists (${earlier})`;
}

/**
 * Location `l` (in the circle) is its offer's nearest one there (ties: the lower position), so an
 * offer with several locations in the circle is found once, at its nearest. One index probe of the
 * offer's other locations (most offers have one).
 */
export function nearestOfItsOffer(db: Db, centre: Coordinates, place: Place): Expression<SqlBool> {
  const d = haversine(centre, 'l');
  const d2 = haversine(centre, 'l2');
  const nearer = db
    .selectFrom('offer_locations as l2')
    .select(sql`1`.as('one'))
    .where(sql<SqlBool>`l2.offer_id = l.offer_id and l2.position <> l.position`)
    .where(sql<SqlBool>`l2.latitude is not null and l2.longitude is not null`)
    .where(sql<SqlBool>`(${d2} < ${d} or (${d2} = ${d} and l2.position < l.position))`)
    .where((eb) => eb.and(inPlace('l2', place)));
  return sql<SqlBool>`not exists (${nearer})`;
}
