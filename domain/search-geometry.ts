import type { Coordinates } from './offer-search';

/*
 * The geometry of a radius search (docs/distribution-search-design.md): the
 * Earth the distances are measured on, and the boxes an index is asked for before the exact
 * great-circle distance (store/distribution-locations.ts, in SQL) decides.
 */

/** The Earth's mean radius: the great-circle (haversine) distance shown is on this sphere. */
export const EARTH_RADIUS_MILES = 3958.7613;
export const MILES_PER_DEGREE_LATITUDE = 69.0545;

/** A box in degrees of latitude and longitude. */
export interface Box {
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

/**
 * The box around the circle. Its longitudes are the circle's widest on the sphere
 * (asin(sin d / cos latitude), wider than d / cos latitude off the equator: a 500-mile circle at 60° N
 * reaches 0.11° further east and west than that), with 0.1 % to spare for rounding; a circle round a pole
 * takes every longitude.
 */
export function boundingBox(c: Coordinates, miles: number): Box {
  const dLat = miles / MILES_PER_DEGREE_LATITUDE;
  const widest = Math.sin(miles / EARTH_RADIUS_MILES) / Math.cos((c.latitude * Math.PI) / 180);
  const dLng = widest >= 1 ? 180 : Math.min(180, ((Math.asin(widest) * 180) / Math.PI) * 1.001);
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

/**
 * Grid cells for a keyword search with a centre (migration 0074, decision 0081): each search
 * document lists the cells of its offer's located redemption locations, one cell per size, and a
 * search asks for the cells its circle's box touches, at the finest size that needs at most
 * MAX_CIRCLE_CELLS of them. Postgres then intersects a word's matches with the circle's on their
 * GIN indexes, before it reads a document. Degrees of latitude and longitude; the id of a cell is
 * `level × 10^8 + row × 10^4 + column` (rows from the South Pole, columns from 180° W), the same
 * in SQL (`search_cells`).
 */
export const CELL_DEGREES = [0.25, 1, 4] as const;
export const MAX_CIRCLE_CELLS = 48;

const cellRow = (latitude: number, size: number) => Math.min(Math.max(Math.floor((latitude + 90) / size), 0), 180 / size - 1);
const cellColumn = (longitude: number, size: number) => Math.floor((longitude + 180) / size);
const cellOf = (level: number, row: number, column: number) => level * 100_000_000 + row * 10_000 + column;

/** The cells of a location, one per size (`search_cells` in SQL computes the same). */
export function locationCells(c: Coordinates): number[] {
  return CELL_DEGREES.map((size, level) => cellOf(level, cellRow(c.latitude, size), cellColumn(c.longitude, size) % (360 / size)));
}

/**
 * The cells the circle's box touches at the finest size that needs at most MAX_CIRCLE_CELLS; a box
 * past the antimeridian wraps round. Undefined when even the largest cells are too many (a circle
 * near a pole): the search then reads without cells.
 */
export function circleCells(c: Coordinates, miles: number): number[] | undefined {
  const box = boundingBox(c, miles);
  for (const [level, size] of CELL_DEGREES.entries()) {
    const columnsAround = 360 / size;
    const [firstRow, lastRow] = [cellRow(box.minLat, size), cellRow(box.maxLat, size)];
    const [firstColumn, lastColumn] = [cellColumn(box.minLng, size), cellColumn(box.maxLng, size)];
    const columns = Math.min(lastColumn - firstColumn + 1, columnsAround);
    if ((lastRow - firstRow + 1) * columns > MAX_CIRCLE_CELLS) continue;
    const cells: number[] = [];
    for (let row = firstRow; row <= lastRow; row++)
      for (let i = 0; i < columns; i++)
        cells.push(cellOf(level, row, (((firstColumn + i) % columnsAround) + columnsAround) % columnsAround));
    return cells;
  }
  return undefined;
}
