import { decodeSearchCursor, encodeSearchCursor, MAX_CURSOR_LENGTH } from '../../schemas/search-cursor';
import type { SearchCursor } from '../../domain/offer-search';

/* The search cursor's text form (schemas/search-cursor.ts): what it writes, it reads back; nothing else. */
describe('search cursor', () => {
  const id = 'ofr_Ab3-x_9';
  const made: SearchCursor[] = [
    { sort: { field: 'price', direction: 'asc' }, key: '4500', id },
    { sort: { field: 'price', direction: 'desc' }, key: null, id },
    { sort: { field: 'value', direction: 'asc' }, key: '-9223372036854775808', id },
    { sort: { field: 'discount', direction: 'desc' }, key: '33.333333333333333333', id },
    { sort: { field: 'title', direction: 'asc' }, key: 'Dîner "pour deux" 🍝 \\ \n', id },
    { sort: { field: 'title', direction: 'asc' }, key: 'x'.repeat(200), id },
    { sort: { field: 'start_date', direction: 'asc' }, key: '2024-02-29', id },
    { sort: { field: 'end_date', direction: 'desc' }, key: '2099-12-31', id },
    { sort: { field: 'published_at', direction: 'asc' }, key: '2026-11-20T10:00:00.123456Z', id },
    { sort: { field: 'published_at', direction: 'desc' }, key: null, id },
    { sort: { field: 'updated_at', direction: 'asc' }, key: '2026-11-25T23:59:59.999999Z', id },
    { sort: { field: 'distance', direction: 'asc' }, key: 0, id },
    { sort: { field: 'distance', direction: 'desc' }, key: 12_345.678901234567, id },
  ];

  it('reads back every cursor it writes, URL-safe', () => {
    for (const cursor of made) {
      const text = encodeSearchCursor(cursor);
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(text.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
      expect(decodeSearchCursor(text)).toEqual(cursor);
    }
  });

  it('refuses keys that are not of their sort, and anything it did not write', () => {
    const text = (body: unknown) => Buffer.from(JSON.stringify(body)).toString('base64url');
    const bad: Array<[string, unknown]> = [
      ['updated_at asc', null], // never empty
      ['title asc', null],
      ['distance asc', null],
      ['price asc', '9223372036854775808'], // past bigint
      ['price asc', '12.5'],
      ['discount asc', '1e5'],
      ['start_date asc', '2023-02-29'],
      ['start_date asc', '0999-01-01'],
      ['published_at asc', '2026-11-20T10:00:00Z'],
      ['published_at asc', '2026-13-01T00:00:00.000000Z'],
      ['distance asc', 1e9],
      ['distance asc', Number.NaN],
      ['title asc', '\ud800'],
    ];
    for (const [s, k] of bad) expect(decodeSearchCursor(text({ v: 1, s, k, i: id }))).toBeNull();
    const good = encodeSearchCursor(made[0]);
    expect(decodeSearchCursor(`${good}=`)).toBeNull(); // padding it never writes
    expect(decodeSearchCursor(good.slice(0, -1))).toBeNull();
    expect(decodeSearchCursor(text({ v: 1, s: 'price asc', k: '1', i: id, w: 0 }))).toBeNull();
    expect(decodeSearchCursor(text({ v: 1, s: 'price asc', k: '1', i: 'o'.repeat(65) }))).toBeNull();
    expect(decodeSearchCursor(text(null))).toBeNull();
  });
});
