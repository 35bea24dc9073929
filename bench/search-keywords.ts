import http from 'node:http';
import os from 'node:os';
import { sql } from 'kysely';
import type { Db } from '../store/db';
import { say, type BenchStack } from './bench-stack';
import { percentile, round1, round3 } from './load';
import { BROAD_WORDS, CATEGORY_NOUNS, COMMON_NOUNS, MODIFIERS } from './search-words';
import { seedCatalogue } from './seed';

/*
 * Keyword search at a million offers (issue 47, `npm run bench -- keywords`, and after the search
 * section's queries in `npm run bench -- search`): the catalogue of bench/seed.ts, whose text is
 * made of bench/search-words.ts. Each class of query rotates over its terms, timed through HTTP;
 * the same queries as a plain ILIKE scan of the offers beside them; relevance as NDCG@10 on a judged
 * set built from the generator's ground truth (where it put each word: title, headline, elsewhere).
 */

const SIZE = 1_000_000;
/** Timed requests per class (its terms in turn) at concurrency 2, after a warm-up of 20; ILIKE scans per class. */
const RUNS = 100;
const CONCURRENCY = 2;
const ILIKE_RUNS = 4;
const NEAR = '&postal_code=10001&radius=25';

const nouns = CATEGORY_NOUNS.map((n) => n.slice(0, COMMON_NOUNS)).flat();
const rare = CATEGORY_NOUNS.map((n) => n[COMMON_NOUNS]);
const oneWord = (list: readonly string[]) => list.filter((w) => !w.includes(' ') && !w.includes('-'));
/** A typo: the two letters after the first two swapped (one edit by the search's count). */
const typo = (w: string) => w.slice(0, 2) + w[3] + w[2] + w.slice(4);
const every = (list: readonly string[], n: number) => list.filter((_, i) => i % Math.ceil(list.length / n) === 0);

/** The classes of query: their terms (q values) and what else the query says. */
export const KEYWORD_CLASSES: Record<string, { terms: string[]; more?: string }> = {
  // One word in a description in ten (about 100,000 offers each), and two of them (about 5,000).
  broad: { terms: oneWord(BROAD_WORDS) },
  'broad two words': { terms: oneWord(BROAD_WORDS).map((w, i) => `${MODIFIERS[i]} ${w}`) },
  // A category's noun (about 15,000 offers: title, headline or description), its rare one (about 100).
  common: { terms: every(oneWord(nouns), 20) },
  rare: { terms: oneWord(rare) },
  'two words': { terms: every(oneWord(nouns), 20).map((n, i) => `${MODIFIERS[i % MODIFIERS.length]} ${n}`) },
  typo: {
    terms: every(
      oneWord(nouns).filter((n) => n.length >= 5),
      20,
    ).map(typo),
  },
  prefix: { terms: every(oneWord(nouns), 20).map((n) => n.slice(0, 4)) },
  'broad near': { terms: oneWord(BROAD_WORDS), more: NEAR },
  'common near': { terms: every(oneWord(nouns), 20), more: NEAR },
  'two words near': { terms: every(oneWord(nouns), 20).map((n, i) => `${MODIFIERS[i % MODIFIERS.length]} ${n}`), more: NEAR },
  'typo near': {
    terms: every(
      oneWord(nouns).filter((n) => n.length >= 5),
      20,
    ).map(typo),
    more: NEAR,
  },
};

/** The judged queries: per category its first common noun, a modifier with it, and it with a typo; judged by the words meant. */
export function judgedQueries(): Array<{ q: string; meant: string[] }> {
  return CATEGORY_NOUNS.flatMap((list, c) => {
    const noun = list.find((n) => !n.includes(' ') && n.length >= 5)!;
    return [
      { q: noun, meant: [noun] },
      { q: `${MODIFIERS[c]} ${noun}`, meant: [MODIFIERS[c], noun] },
      { q: typo(noun), meant: [noun] },
    ];
  });
}

const plain = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
const has = (text: string, word: string) => new RegExp(`(^|[^\\p{L}])${plain(word)}(s|es)?($|[^\\p{L}])`, 'u').test(plain(text));

interface Shown {
  title: string;
  creative: { headlines: string[]; description?: string };
  fine_print?: string;
  advertiser: { name: string };
}
/** An offer's grade for the words meant: 3 each in the title, 2 in a headline, 1 elsewhere, 0 when one is missing (the lowest counts). */
export function grade(o: Shown, meant: string[]): number {
  const of = (w: string) =>
    has(o.title, w)
      ? 3
      : o.creative.headlines.some((h) => has(h, w))
        ? 2
        : has(`${o.creative.description} ${o.advertiser.name}`, w)
          ? 1
          : 0;
  return Math.min(...meant.map(of));
}

/** NDCG@10 with gains 2^grade − 1; the ideal is ten offers of grade 3 (every judged query has at least ten: checked). */
export function ndcg10(grades: number[]): number {
  const dcg = (g: number[]) => g.slice(0, 10).reduce((sum, x, i) => sum + (2 ** x - 1) / Math.log2(i + 2), 0);
  return dcg(grades) / dcg(Array(10).fill(3));
}

export interface KeywordClassResult {
  terms: number;
  p50: number;
  p99: number;
  errors: number;
  ilike_p50: number;
  ilike_ratio: number;
}
export interface KeywordSearchResult {
  offers: number;
  seed_seconds: number;
  /** `uptime`'s load averages when the timing started and ended. */
  load: { start: number[]; end: number[] };
  classes: Record<string, KeywordClassResult>;
  all: { p50: number; p99: number; ilike_p50: number; ilike_ratio: number };
  ndcg10: { queries: number; mean: number; min: number; worst: string };
}

function get(url: string, key: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { 'x-service-api-key': key } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The query as a plain scan: offers on sale whose fields hold each word (ILIKE), the first 50 found, no ranking. */
async function ilike(db: Db, q: string, near: boolean): Promise<number> {
  const words = q.split(' ').map((w) => `%${w}%`);
  const fields = sql`concat_ws(' ', o.title, o.document->'creative'->>'description', o.document->>'fine_print',
    o.document->'advertiser'->>'name', o.document->'creative'->>'headlines')`;
  const t = performance.now();
  await sql`select o.id from offers o where o.status in ('approved', 'resumed') and ${fields} ilike all(${words}::text[])
    ${near ? sql`and exists (select 1 from offer_locations l where l.offer_id = o.id and point(l.longitude, l.latitude) <@ box(point(-74.5, 40.4), point(-73.5, 41.1)))` : sql``}
    limit 50`.execute(db);
  return performance.now() - t;
}

/** Each class's terms in turn through HTTP, `RUNS` requests at CONCURRENCY; latencies in ms. */
async function timeClass(url: (q: string) => string, key: string, agent: http.Agent, terms: string[]) {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < RUNS; i = next++) {
        const t = performance.now();
        const res = await get(url(terms[i % terms.length]), key, agent).catch(() => ({ status: 0 }));
        latencies.push(performance.now() - t);
        if (res.status !== 200) errors++;
      }
    }),
  );
  return { latencies, errors };
}

export async function benchKeywordSearch(bench: BenchStack): Promise<KeywordSearchResult> {
  const db = bench.services.db;
  const have = Number((await sql<{ n: string }>`select count(*) as n from offers where id like 'ofr_seed%'`.execute(db)).rows[0].n);
  say(`keywords: seeding to ${SIZE} offers (${have} there)…`);
  const t0 = performance.now();
  if (have < SIZE) await seedCatalogue(db, bench.sub.clientId, SIZE - have);
  const seedSeconds = round1((performance.now() - t0) / 1000);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const base = `${bench.base}/distribution/beta/offers?per_page=50&q=`;
  const load = { start: os.loadavg().map(round1), end: [] as number[] };
  const classes: Record<string, KeywordClassResult> = {};
  const pooled: number[] = [];
  const pooledIlike: number[] = [];
  try {
    for (const [name, { terms, more = '' }] of Object.entries(KEYWORD_CLASSES)) {
      say(`keywords: ${name} (${terms.length} terms)…`);
      const url = (q: string) => `${base}${encodeURIComponent(q)}${more}`;
      await timeClass(url, bench.dist.key, agent, terms.slice(0, 20)); // warm-up
      const { latencies, errors } = await timeClass(url, bench.dist.key, agent, terms);
      const scans: number[] = [];
      for (let i = 0; i < ILIKE_RUNS; i++) scans.push(await ilike(db, terms[i % terms.length], more !== ''));
      pooled.push(...latencies);
      pooledIlike.push(...scans);
      const p50 = round1(
        percentile(
          [...latencies].sort((a, b) => a - b),
          50,
        ),
      );
      const ilikeP50 = round1(
        percentile(
          scans.sort((a, b) => a - b),
          50,
        ),
      );
      classes[name] = {
        terms: terms.length,
        p50,
        p99: round1(
          percentile(
            [...latencies].sort((a, b) => a - b),
            99,
          ),
        ),
        errors,
        ilike_p50: ilikeP50,
        ilike_ratio: round3(ilikeP50 / p50),
      };
    }
    load.end = os.loadavg().map(round1);
    pooled.sort((a, b) => a - b);
    pooledIlike.sort((a, b) => a - b);
    const all = {
      p50: round1(percentile(pooled, 50)),
      p99: round1(percentile(pooled, 99)),
      ilike_p50: round1(percentile(pooledIlike, 50)),
    };
    return {
      offers: SIZE,
      seed_seconds: seedSeconds,
      load,
      classes,
      all: { ...all, ilike_ratio: round3(all.ilike_p50 / all.p50) },
      ndcg10: await judge(db, base, bench.dist.key, agent),
    };
  } finally {
    agent.destroy();
  }
}

/** NDCG@10 over the judged queries whose meant words are together in at least ten titles (the ideal's ten offers of grade 3). */
async function judge(db: Db, base: string, key: string, agent: http.Agent): Promise<KeywordSearchResult['ndcg10']> {
  say('keywords: relevance on the judged queries…');
  const scores: Array<{ q: string; score: number }> = [];
  for (const { q, meant } of judgedQueries()) {
    const patterns = meant.map((w) => `\\m${w}`);
    const { rows } = await sql<{ n: string }>`select count(*) as n from (select 1 from offers
      where id like 'ofr_seed%' and title ~* all(${patterns}::text[]) limit 10) t`.execute(db);
    if (Number(rows[0].n) < 10) continue;
    const res = await get(`${base.replace('per_page=50', 'per_page=10')}${encodeURIComponent(q)}`, key, agent);
    const offers = (JSON.parse(res.body) as { offers: Shown[] }).offers;
    scores.push({ q, score: round3(ndcg10(offers.map((o) => grade(o, meant)))) });
  }
  const worst = scores.reduce((a, b) => (b.score < a.score ? b : a));
  const mean = scores.reduce((s, x) => s + x.score, 0) / scores.length;
  return { queries: scores.length, mean: round3(mean), min: worst.score, worst: worst.q };
}
