import {
  alternatives,
  editDistance,
  highlightFragment,
  MARK_END,
  MARK_START,
  MAX_CORRECTIONS,
  MAX_QUERY_WORDS,
  queryWords,
  typoBudget,
} from '../../domain/keyword-search';
import { planSearch, type SearchFilters } from '../../domain/search-plan';
import { cursorOfFields } from '../../domain/search-cursor';
import { defaultSort } from '../../domain/offer-search';

/* Keyword search's pure parts (domain/keyword-search.ts): words, typo budgets, corrections, the plan, highlighting. */

describe('keyword search: the query', () => {
  it('splits q into words of letters and digits, accents dropped, lower case; anything else separates', () => {
    expect(queryWords('Crème  Brûlée!').map((w) => w.word)).toEqual(['creme', 'brulee']);
    expect(queryWords(`sushi:* & !(pizza | 'x') <-> \\ .*[a-z]+`).map((w) => w.word)).toEqual(['sushi', 'pizza', 'x', 'a', 'z']);
    expect(queryWords('東京 ramen2go').map((w) => w.word)).toEqual(['東京', 'ramen2go']);
    expect(queryWords('!!! ...')).toEqual([]);
    expect(queryWords('a '.repeat(50))).toHaveLength(MAX_QUERY_WORDS);
  });

  it('treats the last word as a prefix while typing (3 letters or more, no space after it)', () => {
    expect(queryWords('spa da').map((w) => w.prefix)).toEqual([false, false]);
    expect(queryWords('spa day').map((w) => w.prefix)).toEqual([false, true]);
    expect(queryWords('spa day ').map((w) => w.prefix)).toEqual([false, false]);
  });

  it('tolerates no typo up to 4 letters, one from 5, two from 9, none past 40', () => {
    expect([4, 5, 8, 9, 40, 41].map(typoBudget)).toEqual([0, 1, 1, 2, 2, 0]);
    expect(queryWords('sushl restuarnt').map((w) => w.typos)).toEqual([1, 2]);
  });

  it('measures edits with a transposition as one, and stops past the budget', () => {
    expect(editDistance('sushi', 'sushl', 1)).toBe(1);
    expect(editDistance('sushi', 'suhsi', 1)).toBe(1);
    expect(editDistance('massage', 'masage', 1)).toBe(1);
    expect(editDistance('aromatherapy', 'aromathreapi', 2)).toBe(2);
    expect(editDistance('sushi', 'sxshl', 1)).toBe(2);
    expect(editDistance('a', 'abcdef', 2)).toBe(3);
    expect(editDistance('same', 'same', 0)).toBe(0);
  });

  it('corrects a word the catalogue does not use, within its budget, nearest first; a known word means itself', () => {
    const sushl = queryWords('sushl ')[0];
    expect(alternatives(sushl, false, ['sunset', 'sushi', 'sushis', 'shush'])).toEqual(['sushl', 'sushi']);
    expect(alternatives(sushl, true, ['sushi'])).toEqual(['sushl']);
    expect(alternatives(queryWords('spa ')[0], false, ['spam', 'spas'])).toEqual(['spa']);
    const many = Array.from({ length: 10 }, (_, i) => `sush${String.fromCharCode(97 + i)}`);
    expect(alternatives(sushl, false, many)).toHaveLength(1 + MAX_CORRECTIONS);
  });

  it('escapes a fragment as HTML and puts the matched words in <em>', () => {
    expect(highlightFragment(`${MARK_START}Sushi${MARK_END} <b>bar</b> & "grill" 'n'`)).toBe(
      '<em>Sushi</em> &lt;b&gt;bar&lt;/b&gt; &amp; &quot;grill&quot; &#39;n&#39;',
    );
  });
});

describe('keyword search: the plan and the sort', () => {
  const keywords = { all: `'sushi'`, any: `'sushi'` };
  const search = (over: Partial<SearchFilters>): SearchFilters => ({ radius: 25, sort: defaultSort(false, true), keywords, ...over });

  it('sorts by relevance when q is given, and reads the search documents then, with or without a centre', () => {
    expect(defaultSort(true, true)).toEqual({ field: 'relevance', direction: 'desc' });
    expect(planSearch(search({}))).toMatchObject({ count: 'keywords', page: 'relevance', fromSearchRows: true });
    expect(planSearch(search({ centre: { latitude: 1, longitude: 2 } }))).toMatchObject({ count: 'keywords', page: 'relevance' });
    expect(planSearch(search({ recently_closed: 1 }))).toMatchObject({ page: 'relevance', fromSearchRows: false });
    // Another sort: the usual plan, the words a filter.
    expect(planSearch(search({ sort: { field: 'price', direction: 'asc' } }))).toMatchObject({ count: 'offers', page: 'offers' });
  });

  it('carries a relevance in a cursor as a number', () => {
    expect(cursorOfFields({ v: 1, s: 'relevance desc', k: 0.0607927, i: 'ofr_a' })).toEqual({
      sort: { field: 'relevance', direction: 'desc' },
      key: 0.0607927,
      id: 'ofr_a',
    });
    expect(cursorOfFields({ v: 1, s: 'relevance desc', k: 'x', i: 'ofr_a' })).toBeNull();
  });
});
