import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Db } from './db';
import {
  alternatives,
  CORRECTION_CANDIDATES,
  DISTANCE_HALF_MILES,
  FIELD_WEIGHTS,
  MARK_END,
  MARK_START,
  prefixTerm,
  type KeywordQuery,
  type QueryWord,
} from '../domain/keyword-search';
import type { SearchPlan } from '../domain/search-plan';
import { filters, inPlaceOrNationwide, rowMatches, type VisibilityFilters } from './distribution-visibility';
import { haversine, inCircle } from './distribution-locations';

/*
 * Keyword search on the search documents (offer_search_documents, migration 0073; decision 0079):
 * a query's words as a tsquery (typos corrected against the vocabulary, search_words), the matches
 * with their relevance, and what matched in each offer of a page. Who sees what is still
 * store/distribution-visibility.ts, on the document's copies of its offer's filters.
 */

/** The text search configuration of the documents: English stems, accents dropped (migration 0073). */
const CONFIG = sql.lit('offer_search');

/**
 * The tsquery of these words (domain/keyword-search.ts queryWords): each word, its corrections when
 * the vocabulary does not hold it (the nearest words by trigrams, kept within its typo budget), and
 * for the last its prefix; every word must match (`all`), and `any` marks each field one of them
 * matched in. Empty (`all: ''`) when no word has a lexeme: only stop words.
 */
export async function resolveKeywords(db: Db, words: readonly QueryWord[]): Promise<KeywordQuery> {
  if (!words.length) return { all: '', any: '' };
  const { rows } = await sql<{ known: boolean; near: string[] | null }>`
    select exists (select 1 from search_words v where v.word = t.word) as known,
      case when t.typos > 0 then array(select v.word from search_words v order by v.word <-> t.word limit ${CORRECTION_CANDIDATES}) end as near
    from unnest(${words.map((w) => w.word)}::text[], ${words.map((w) => w.typos)}::int[]) with ordinality t(word, typos, i)
    order by t.i`.execute(db);
  const terms = words.map((w, i) => {
    const alts = alternatives(w, rows[i].known, rows[i].near ?? []).map((a) => sql`plainto_tsquery(${CONFIG}, ${a})`);
    if (w.prefix) alts.push(sql`to_tsquery(${CONFIG}, ${prefixTerm(w.word)})`);
    return sql`(${sql.join(alts, sql` || `)})`;
  });
  const { rows: built } = await sql<KeywordQuery>`select (${sql.join(terms, sql` && `)})::text as all, (${sql.join(terms, sql` || `)})::text as any`.execute(db);
  return built[0];
}

/** The relevance of a search document `d` (ts_rank with the field weights, D C B A). */
function relevance(q: KeywordQuery): RawBuilder<number> {
  const w = FIELD_WEIGHTS;
  return sql<number>`ts_rank(array[${w.description}, ${w.advertiser}, ${w.headlines}, ${w.title}]::float4[], d.words, ${q.all}::tsquery)::float8`;
}

/** The offers matching the words and every filter, each with its relevance (`sort_key`), and with a centre its distance. */
export type RelevanceRows = SelectQueryBuilder<any, any, { id: string; distance: number | null; sort_key: number }>;

/**
 * The matches of a keyword search sorted by relevance, read from the search documents: on their
 * copies of the offer's filters, a place by a probe of the offer's locations; with recently_* (the
 * catalogue sync, which must see offers that left) on the offer rows. With a centre, each match
 * at its nearest location in the circle, its relevance × H / (H + miles) (DISTANCE_HALF_MILES).
 */
export function relevanceRows(db: Db, s: VisibilityFilters, keywords: KeywordQuery, plan: SearchPlan): RelevanceRows {
  const others: VisibilityFilters = { ...s, keywords: undefined };
  const matches = db.selectFrom('offer_search_documents as d').where(sql<SqlBool>`d.words @@ ${keywords.all}::tsquery`);
  const filtered = plan.fromSearchRows
    ? matches.where((eb) => eb.and([...rowMatches('d', others), ...(s.centre ? [] : inPlaceOrNationwide(db, 'd', plan.place))]))
    : matches.innerJoin('offers as o', 'o.id', 'd.offer_id').where((eb) => filters(eb, others, plan.place));
  if (!s.centre) return filtered.select(['d.offer_id as id', sql<null>`null::float8`.as('distance'), relevance(keywords).as('sort_key')]);
  const nearest = db
    .selectFrom('offer_locations as l')
    .select(['l.offer_id', sql<number>`min(${haversine(s.centre)})`.as('miles')])
    .where((eb) => eb.and(inCircle('l', s.centre!, s.radius, plan.place)))
    .groupBy('l.offer_id');
  return (filtered as SelectQueryBuilder<any, any, object>)
    .innerJoin(nearest.as('c'), 'c.offer_id', 'd.offer_id')
    .select([
      'd.offer_id as id',
      'c.miles as distance',
      sql<number>`${relevance(keywords)} * ${DISTANCE_HALF_MILES}::float8 / (${DISTANCE_HALF_MILES}::float8 + c.miles)`.as('sort_key'),
    ]);
}

/** ts_headline's options: the private-use marks around matched words (domain/keyword-search.ts highlightFragment). */
const HEADLINE = sql.lit(`StartSel="${MARK_START}", StopSel="${MARK_END}", MaxWords=20, MinWords=8, ShortWord=2`);

/** A field's text as ts_headline reads it: without the marks' characters, so a mark is always ours. */
const clean = (text: RawBuilder<unknown>) => sql`translate(${text}, ${MARK_START + MARK_END}, '')`;

/** One field's fragment when one of the words matches in it (else null). */
function fragment(text: RawBuilder<unknown>, q: KeywordQuery) {
  const t = sql`coalesce(${text}, '')`;
  return sql`case when to_tsvector(${CONFIG}, ${t}) @@ ${q.any}::tsquery then ts_headline(${CONFIG}, ${clean(t)}, ${q.any}::tsquery, ${HEADLINE}) end`;
}

/**
 * What matched in the offer `o` of a page: each field (by the names of MATCHED_FIELDS) where one of
 * the words is, with its fragment marked; the first headline that matches.
 */
export function matchedFragments(q: KeywordQuery): RawBuilder<Record<string, string>> {
  const doc = (path: string) => sql.raw(`o.document${path}`);
  const headline = sql`(select ${fragment(sql`h`, q)} from jsonb_array_elements_text(coalesce(${doc("->'creative'->'headlines'")}, '[]')) h
    where to_tsvector(${CONFIG}, h) @@ ${q.any}::tsquery limit 1)`;
  return sql`jsonb_strip_nulls(jsonb_build_object(
    'title', ${fragment(doc("->>'title'"), q)},
    'headlines', ${headline},
    'advertiser_name', ${fragment(doc("->'advertiser'->>'name'"), q)},
    'categories', ${fragment(sql`offer_search_categories(o.document)`, q)},
    'description', ${fragment(doc("->'creative'->>'description'"), q)},
    'fine_print', ${fragment(doc("->>'fine_print'"), q)}))`;
}
