import fc from 'fast-check';
import type { Coordinates } from '../../domain/offer-search';
import { boundingBox, CELL_DEGREES, circleCells, EARTH_RADIUS_MILES, locationCells, MAX_CIRCLE_CELLS } from '../../domain/search-geometry';

/** The point `miles` from `c` on the sphere, heading `bearing` radians from north (great circle). */
function destination(c: Coordinates, miles: number, bearing: number): Coordinates {
  const rad = Math.PI / 180;
  const d = miles / EARTH_RADIUS_MILES;
  const [lat1, lng1] = [c.latitude * rad, c.longitude * rad];
  const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(bearing));
  const lng2 = lng1 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
  // Back into [-180, 180), as a stored location is.
  return { latitude: lat2 / rad, longitude: ((((lng2 / rad + 180) % 360) + 360) % 360) - 180 };
}

const centre = fc.record({
  latitude: fc.double({ min: -89.9, max: 89.9, noNaN: true }),
  longitude: fc.double({ min: -180, max: 180, maxExcluded: true, noNaN: true }),
});
// Up to the search's largest radius (domain/offer-search.ts MAX_RADIUS_MILES), a point inside it.
const inside = fc.record({
  c: centre,
  miles: fc.double({ min: 0.1, max: 500, noNaN: true }),
  share: fc.double({ min: 0, max: 1, noNaN: true }),
  bearing: fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }),
});

describe('search cells (a keyword search with a centre)', () => {
  it('asks for a cell of every location inside the circle, at most MAX_CIRCLE_CELLS', () => {
    fc.assert(
      fc.property(inside, ({ c, miles, share, bearing }) => {
        const cells = circleCells(c, miles);
        if (!cells) return;
        expect(cells.length).toBeLessThanOrEqual(MAX_CIRCLE_CELLS);
        const point = destination(c, miles * share * 0.999, bearing);
        expect(locationCells(point).some((cell) => cells.includes(cell))).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it('draws the box round the whole circle on the sphere, also far from the equator', () => {
    fc.assert(
      fc.property(inside, ({ c, miles, share, bearing }) => {
        const box = boundingBox(c, miles);
        const p = destination(c, miles * share * 0.999, bearing);
        expect(p.latitude).toBeGreaterThanOrEqual(box.minLat);
        expect(p.latitude).toBeLessThanOrEqual(box.maxLat);
        // Longitudes compared round the antimeridian: the point's offset from the centre, in (-180, 180].
        const offset = ((((p.longitude - c.longitude + 180) % 360) + 360) % 360) - 180;
        expect(c.longitude + offset).toBeGreaterThanOrEqual(box.minLng);
        expect(c.longitude + offset).toBeLessThanOrEqual(box.maxLng);
      }),
      { numRuns: 5_000 },
    );
  });

  it('uses the smallest cells that keep a city search to a few, and larger ones as the radius grows', () => {
    const newYork = { latitude: 40.75, longitude: -73.99 };
    const level = (cells: number[] | undefined) => Math.floor(cells![0] / 100_000_000);
    expect(level(circleCells(newYork, 25))).toBe(0);
    expect(circleCells(newYork, 25)!.length).toBeLessThanOrEqual(20);
    expect(level(circleCells(newYork, 100))).toBe(1);
    expect(level(circleCells(newYork, 500))).toBe(2);
    // Round a pole every longitude is near: more than the largest cells allow, so no cells.
    expect(circleCells({ latitude: 89.5, longitude: 0 }, 100)).toBeUndefined();
  });

  it('wraps round the antimeridian', () => {
    const fiji = { latitude: -17.8, longitude: 179.9 };
    const east = locationCells({ latitude: -17.8, longitude: -179.95 });
    expect(east.some((cell) => circleCells(fiji, 20)!.includes(cell))).toBe(true);
  });

  it('gives each location one cell of each size', () => {
    const cells = locationCells({ latitude: 0.1, longitude: 0.1 });
    expect(cells).toHaveLength(CELL_DEGREES.length);
    expect(cells).toEqual([0 * 1e8 + 360 * 1e4 + 720, 1e8 + 90 * 1e4 + 180, 2e8 + 22 * 1e4 + 45]);
  });
});
