/*
 * Keyword search (`q`, issue 47; docs/distribution-search.md "Keyword search"): how a query's text
 * becomes words, which typos each word tolerates, which corrections of the catalogue's vocabulary
 * stand in for it, and how relevance and distance combine. The data layer
 * (store/distribution-keywords.ts) turns the words into a Postgres tsquery; nothing here parses
 * tsquery syntax, so no character of `q` can reach it as an operator.
 */

/** Longest `q` accepted (characters); longer is 422 (docs/security.md "Budgets"). */
export const MAX_QUERY_LENGTH = 200;
/** Words of `q` searched; the rest are ignored (each costs one vocabulary lookup). */
export const MAX_QUERY_WORDS = 8;
/** Longest word corrected for typos: longer ones are searched as given. */
export const MAX_CORRECTED_WORD = 40;
/** A word's last word is also searched as a prefix (as a person types) from this many letters. */
export const MIN_PREFIX_LETTERS = 3;
/**
 * Matches a keyword search sorted by relevance ranks, C: up to C in the titles and headlines and C
 * elsewhere (1,000 at most in all, as Algolia's `paginationLimitedTo`), or with a centre the C nearest (store/distribution-keywords.ts). More matches than
 * that: `total_relation: gte`, and paging ends after the ranked ones (sort by another field to read
 * every match). Ranking every match of a broad word (100,000 at a million offers) reads each one.
 */
export const KEYWORD_CANDIDATES = 500;
/**
 * A keyword search with a centre whose words match at most about this many offers in the circle's
 * grid cells (KeywordQuery.nearby, the planner's estimate) joins those matches to their locations;
 * more, and the circle's locations are read nearest first until C of them match. Either way is
 * exact: the estimate only chooses the faster.
 */
export const FEW_MATCHES = 1_000;
/** Vocabulary words looked at per typed word (nearest by trigrams), and corrections kept of them. */
export const CORRECTION_CANDIDATES = 50;
export const MAX_CORRECTIONS = 5;
/** Vocabulary words the last word is completed to as a prefix (as a person types), shortest first. */
export const PREFIX_COMPLETIONS = 20;

/**
 * Field weights of the relevance (Postgres `ts_rank` with weights D, C, B, A): title 1, headlines
 * 0.4, advertiser name and category names 0.2, description and fine print 0.1.
 */
export const FIELD_WEIGHTS = { description: 0.1, advertiser: 0.2, headlines: 0.4, title: 1 } as const;
/** With a centre, relevance × H / (H + miles): halved at this many miles from the nearest location. */
export const DISTANCE_HALF_MILES = 10;

/** What a publisher is told matched: the field, and the fragment of it (HTML, the words in `<em>`). */
export const MATCHED_FIELDS = ['title', 'headlines', 'advertiser_name', 'categories', 'description', 'fine_print'] as const;
export type MatchedField = (typeof MATCHED_FIELDS)[number];

/**
 * A keyword query as the data layer resolved it (store/distribution-keywords.ts): Postgres tsquery
 * texts, `all` (every word) to match and rank, `any` (one of them) to mark what matched in a field;
 * `all` is empty when no word has a lexeme (only stop words): nothing matches then.
 */
export interface KeywordQuery {
  all: string;
  any: string;
  /**
   * With a centre: the planner's estimate of the offers matching `all` in the circle's grid cells
   * (domain/search-geometry.ts circleCells); undefined without a centre, or when no cells cover it.
   */
  nearby?: number;
}

/** One word of the query: as typed (accents dropped, lower case), how many edits it tolerates, whether it is also a prefix. */
export interface QueryWord {
  word: string;
  typos: number;
  prefix: boolean;
}

/** Typos tolerated in a word of this many letters: none up to 4, one from 5, two from 9 (as Elasticsearch's AUTO). */
export function typoBudget(letters: number): number {
  if (letters > MAX_CORRECTED_WORD) return 0;
  return letters >= 9 ? 2 : letters >= 5 ? 1 : 0;
}

/**
 * The words of `q`: letters and digits (any script), accents dropped and lower case; anything else
 * (punctuation, tsquery or regex syntax) separates words. The first MAX_QUERY_WORDS are kept; the
 * last is also a prefix unless `q` ends with a space (the person has finished typing it).
 */
export function queryWords(q: string): QueryWord[] {
  const plain = q
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const words = plain
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, MAX_QUERY_WORDS);
  const typing = !/\s$/u.test(q);
  return words.map((word, i) => ({
    word,
    typos: typoBudget([...word].length),
    prefix: typing && i === words.length - 1 && [...word].length >= MIN_PREFIX_LETTERS,
  }));
}

/**
 * Edit distance with adjacent transpositions counted as one edit (optimal string alignment), or
 * `max + 1` as soon as it exceeds `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = row;
  }
  return Math.min(prev[t.length], max + 1);
}

/**
 * What a query word is searched as: itself (stemmed by the search), and when the catalogue has no
 * such word (`known` false) and it tolerates typos, the vocabulary's words within its budget,
 * nearest first (at most MAX_CORRECTIONS). A word the catalogue uses is not corrected: it means
 * itself, and its near neighbours (pizza, piazza) are other words.
 */
export function alternatives(w: QueryWord, known: boolean, candidates: readonly string[]): string[] {
  if (known || w.typos === 0) return [w.word];
  const near = candidates
    .filter((c) => c !== w.word)
    .map((c) => ({ c, d: editDistance(w.word, c, w.typos) }))
    .filter(({ d }) => d <= w.typos)
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .slice(0, MAX_CORRECTIONS)
    .map(({ c }) => c);
  return [w.word, ...near];
}

/** The two marks Postgres' ts_headline puts around a matched word (private-use characters, removed from the text first). */
export const MARK_START = '\uE000';
export const MARK_END = '\uE001';

/** A fragment as shown: its text HTML-escaped, each matched word in `<em>`…`</em>`. */
export function highlightFragment(marked: string): string {
  const escaped = marked.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c as '&' | '<' | '>' | '"' | "'"],
  );
  return escaped.replaceAll(MARK_START, '<em>').replaceAll(MARK_END, '</em>');
}
