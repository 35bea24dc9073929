import type { Coordinates } from './offer-search';

/*
 * The geometry of a radius search (docs/distribution-search-design.md): the
 * Earth the distances are measured on, and the boxes an index is asked for before the exact
 * great-circle distance (store/distribution-locations.ts, in SQL) decides.
 */

/** The Earth's mean radius: the great-circle (haversine) distance shown is on this sphere. */
export const EARTH_RADIUS_MILES = 3958.7613;
export const MILES_PER_DEGREE_LATITUDE = 69.0545;

/** The smallest cosine of a latitude a box is drawn with: near the poles it would divide by nearly zero. */
const MIN_COS_LATITUDE = 0.01;

/** A box in degrees of latitude and longitude. */
export interface Box {
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

/** The box around the circle; longitude degrees shrink with latitude (clamped near the poles). */
export function boundingBox(c: Coordinates, miles: number): Box {
  const dLat = miles / MILES_PER_DEGREE_LATITUDE;
  const cosLat = Math.max(Math.cos((c.latitude * Math.PI) / 180), MIN_COS_LATITUDE);
  const dLng = Math.min(180, miles / (MILES_PER_DEGREE_LATITUDE * cosLat));
  return { minLat: c.latitude - dLat, maxLat: c.latitude + dLat, minLng: c.longitude - dLng, maxLng: c.longitude + dLng };
}

/**
 * The radius of the Earth-cube box (earthdistance's `earth_box`) around a circle of `miles`, in
 * Earth radii (its unit is `earth()`): a hair (0.1 %) wider than the circle, so no point on its
 * edge is lost to rounding; the exact distance filters what the box lets through.
 */
export function earthBoxRadius(miles: number): number {
  return (miles * 1.001) / EARTH_RADIUS_MILES;
}
