import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Db } from './db';
import {
  alternatives,
  CORRECTION_CANDIDATES,
  DISTANCE_HALF_MILES,
  FIELD_WEIGHTS,
  FEW_MATCHES,
  KEYWORD_CANDIDATES,
  PREFIX_COMPLETIONS,
  MARK_END,
  MARK_START,
  type KeywordQuery,
  type QueryWord,
} from '../domain/keyword-search';
import type { SearchPlan } from '../domain/search-plan';
import type { BoundedPaged } from '../domain/paging';
import { filters, inPlaceOrNationwide, rowMatches, type VisibilityFilters } from './distribution-visibility';
import { earthCentre, earthPoint, haversine, inCircle, nearestOfItsOffer } from './distribution-locations';
import { circleCells } from '../domain/search-geometry';

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
 * for the last the vocabulary's words it begins (its completions, shortest first: a prefix as plain
 * words, whose GIN lookups and estimates are exact, unlike a `:*` prefix term's); every word must
 * match (`all`), and `any` marks each field one of them matched in. Empty (`all: ''`) when no word
 * has a lexeme: only stop words. Each alternative goes through plainto_tsquery: no text of `q` is
 * read as tsquery syntax.
 */
export async function resolveKeywords(db: Db, words: readonly QueryWord[]): Promise<KeywordQuery> {
  if (!words.length) return { all: '', any: '' };
  // Words are letters and digits only (queryWords), so none holds LIKE's % or _.
  const { rows } = await sql<{ known: boolean; near: string[] | null; completions: string[] | null }>`
    select exists (select 1 from search_words v where v.word = t.word) as known,
      case when t.typos > 0 then array(select v.word from search_words v order by v.word <-> t.word limit ${CORRECTION_CANDIDATES}) end as near,
      case when t.prefix then array(select v.word from search_words v where v.word like t.word || '%' and v.word <> t.word
        order by length(v.word), v.word limit ${PREFIX_COMPLETIONS}) end as completions
    from unnest(${words.map((w) => w.word)}::text[], ${words.map((w) => w.typos)}::int[], ${words.map((w) => w.prefix)}::boolean[])
      with ordinality t(word, typos, prefix, i)
    order by t.i`.execute(db);
  const terms = words.map((w, i) => {
    const alts = [...alternatives(w, rows[i].known, rows[i].near ?? []), ...(rows[i].completions ?? [])];
    return sql`(${sql.join(
      alts.map((a) => sql`plainto_tsquery(${CONFIG}, ${a})`),
      sql` || `,
    )})`;
  });
  const { rows: built } =
    await sql<KeywordQuery>`select (${sql.join(terms, sql` && `)})::text as all, (${sql.join(terms, sql` || `)})::text as any`.execute(db);
  return built[0];
}

/**
 * A keyword search with a centre, its keywords given `nearby`: how many search documents match
 * them in the circle's grid cells, as the planner estimates it from the column statistics (its row
 * estimate, the "count estimate" of EXPLAIN: a planning, no read). Any other search as it is.
 */
export async function withNearbyEstimate<S extends VisibilityFilters>(db: Db, s: S): Promise<S> {
  const cells = s.keywords?.all && s.centre ? circleCells(s.centre, s.radius) : undefined;
  if (!cells) return s;
  const { rows } = await sql<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>`explain (format json)
    select 1 from offer_search_documents d where d.words @@ ${s.keywords!.all}::tsquery and d.cells && ${sql.val(cells)}::int[]`.execute(
    db,
  );
  return { ...s, keywords: { ...s.keywords!, nearby: rows[0]['QUERY PLAN'][0].Plan['Plan Rows'] } };
}

/** The relevance of a search document `d` (ts_rank with the field weights, D C B A). */
function relevance(q: KeywordQuery): RawBuilder<number> {
  const w = FIELD_WEIGHTS;
  return sql<number>`ts_rank(array[${w.description}, ${w.advertiser}, ${w.headlines}, ${w.title}]::float4[], d.words, ${q.all}::tsquery)::float8`;
}

/** A keyword search's candidates: id, distance (with a centre), relevance (`sort_key`), and tier (1: the words in the title and headlines). */
export type RelevanceRows = SelectQueryBuilder<any, any, { id: string; distance: number | null; sort_key: number; tier: number }>;

/**
 * The candidates of a keyword search sorted by relevance (domain/keyword-search.ts
 * KEYWORD_CANDIDATES), each filtered on the search document's copies of its offer's filters (a
 * place by a probe of its locations; with recently_*, the catalogue sync, on the offer rows) and
 * ranked. Without a centre, up to C matches of the title and headlines (their own GIN index) and up
 * to C others; with a centre, the C nearest matches in the circle (the locations nearest first, each
 * offer at its nearest), each ranked relevance × H / (H + miles) (DISTANCE_HALF_MILES).
 */
export function keywordCandidates(db: Db, s: VisibilityFilters, keywords: KeywordQuery, plan: SearchPlan): RelevanceRows {
  const others: VisibilityFilters = { ...s, keywords: undefined };
  if (s.centre) return nearestCandidates(db, others, keywords, plan);
  const docs = (condition: Expression<SqlBool>) => {
    const rows = db.selectFrom('offer_search_documents as d').where(condition);
    return plan.fromSearchRows
      ? rows.where((eb) => eb.and([...rowMatches('d', others), ...inPlaceOrNationwide(plan.place, 'd')]))
      : (rows.innerJoin('offers as o', 'o.id', 'd.offer_id').where((eb) => filters(eb, others, plan.place)) as unknown as typeof rows);
  };
  const tier = (n: number, condition: Expression<SqlBool>) =>
    db
      .selectFrom(
        docs(condition)
          .select([
            'd.offer_id as id',
            sql<null>`null::float8`.as('distance'),
            relevance(keywords).as('sort_key'),
            sql<number>`${sql.lit(n)}`.as('tier'),
          ])
          .limit(KEYWORD_CANDIDATES)
          .as(`t${n}`),
      )
      .selectAll();
  const inHead = sql<SqlBool>`d.head @@ ${keywords.all}::tsquery`;
  const elsewhere = sql<SqlBool>`d.words @@ ${keywords.all}::tsquery and not d.head @@ ${keywords.all}::tsquery`;
  return tier(1, inHead).unionAll(tier(2, elsewhere)) as unknown as RelevanceRows;
}

/**
 * With a centre: the matching offers in the circle, each at its nearest location there, up to C
 * nearest first. When the planner expects at most FEW_MATCHES matches in the circle's grid cells
 * (KeywordQuery.nearby), every match there is read (the words' and the cells' GIN indexes
 * intersected) and joined to its locations; more, and the circle's locations are read nearest
 * first (the KNN index), each probing its offer's search document, until C match. Both are exact.
 */
function nearestCandidates(db: Db, s: VisibilityFilters, keywords: KeywordQuery, plan: SearchPlan): RelevanceRows {
  const centre = s.centre!;
  const matching = sql<SqlBool>`d.words @@ ${keywords.all}::tsquery`;
  const cells = keywords.nearby !== undefined && keywords.nearby <= FEW_MATCHES ? circleCells(centre, s.radius) : undefined;
  // With cells, the matches drive: each one's nearest location in the circle (a probe of its
  // locations; the planner cannot see how many locations a box holds, so it is not asked to choose).
  const located = cells
    ? db
        .selectFrom('offer_search_documents as d')
        .where(sql<SqlBool>`${matching} and d.cells && ${sql.val(cells)}::int[]`)
        .innerJoinLateral(
          (eb) =>
            eb
              .selectFrom('offer_locations as l')
              .selectAll('l')
              .whereRef('l.offer_id', '=', 'd.offer_id')
              .where((w) => w.and(inCircle('l', centre, s.radius, plan.place, false)))
              .orderBy(haversine(centre))
              .orderBy('l.position')
              .limit(1)
              .as('l'),
          (join) => join.onTrue(),
        )
    : db
        .selectFrom('offer_locations as l')
        .innerJoin('offer_search_documents as d', 'd.offer_id', 'l.offer_id')
        .where(matching)
        .where((eb) => eb.and([...inCircle('l', centre, s.radius, plan.place, true), nearestOfItsOffer(db, centre, plan.place)]));
  const filtered = plan.fromSearchRows
    ? located.where((eb) => eb.and(rowMatches('l', s)))
    : located.innerJoin('offers as o', 'o.id', 'l.offer_id').where((eb) => filters(eb, s, plan.place));
  const rows = (filtered as SelectQueryBuilder<any, any, object>)
    .select([
      'l.offer_id as id',
      haversine(centre).as('distance'),
      sql<number>`${relevance(keywords)} * ${DISTANCE_HALF_MILES}::float8 / (${DISTANCE_HALF_MILES}::float8 + ${haversine(centre)})`.as(
        'sort_key',
      ),
      sql<number>`1`.as('tier'),
    ])
    .orderBy(sql`${earthPoint('l')} <-> ${earthCentre(centre)}`)
    .limit(KEYWORD_CANDIDATES);
  return db.selectFrom(rows.as('nearest')).selectAll() as unknown as RelevanceRows;
}

/** A search's total (store/distribution-counts.ts Total, which imports this module). */
type Total = Omit<BoundedPaged<never>, 'rows'>;

/** The name a search statement gives its candidates (a WITH), read for its page and its total. */
export const CANDIDATES = 'keyword_candidates';

/** How many candidates, and whether a tier was full: `{n, full}` (JSON) from the statement's candidates. */
const tally = (from: RawBuilder<unknown>) =>
  sql`(select json_build_object('n', count(*), 'full', count(*) filter (where c.tier = 1) >= ${KEYWORD_CANDIDATES}
    or count(*) filter (where c.tier = 2) >= ${KEYWORD_CANDIDATES}) from ${from} c)`;
export const candidatesTotal = () => tally(sql.table(CANDIDATES));

/**
 * A keyword search's total from its tally: its candidates, `gte` when a tier was full (more
 * matches than were ranked; the pages show the candidates), and never past the search's bound.
 */
export function totalOfCandidates(tallied: unknown, bound: number): Total {
  const { n, full } = tallied as { n: number; full: boolean };
  return n > bound || full ? { total: Math.min(n, bound), total_relation: 'gte' } : { total: n, total_relation: 'eq' };
}

/** The same counted on its own (a page past the candidates, which has no row to carry it). */
export async function countCandidates(db: Db, candidates: RelevanceRows, bound: number): Promise<Total> {
  const { rows } = await sql<{ t: unknown }>`select ${tally(sql`(${candidates})`)} as t`.execute(db);
  return totalOfCandidates(rows[0].t, bound);
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
