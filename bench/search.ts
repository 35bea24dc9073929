import http from 'node:http';
import { categoryTree } from '../store/categories';
import { searchDistributionOffers } from '../store/distribution-search';
import { offerSearch, searchCentre } from '../services/distribution-offers';
import { DistributionOfferQuery } from '../schemas/distribution-offer';
import { say, type BenchStack } from './bench-stack';
import { round1, round3, runLoad, runPaired, type LoadResult } from './load';
import { SEARCH_QUERIES } from './search-queries';
import { seedCatalogue } from './seed';

/*
 * Search (issue 24): the query set on a catalogue of 100,000 then 1,000,000 offers seeded by
 * set-based SQL (bench/seed.ts seedCatalogue), each query through HTTP against the same query
 * function called directly. The client is node:http with keep-alive (as a publisher's server
 * would call us), not fetch: in this process, undici's fetch cost ~2-4 ms a request of its own.
 * Both sides are warmed up, then timed in alternating batches so the shared machine's changing
 * load weighs on both alike.
 */

/** The catalogue sizes the search section seeds, in order. */
const SEARCH_SIZES = [100_000, 1_000_000];
/** Timed requests per query and side (in 3 alternating batches), after 20 of warm-up each. */
const SEARCH_RUNS = 150;

/**
 * The deep page (issue 24, paging by cursor): the first copy of the catalogue's query
 * (docs/distribution-search.md "Keeping a local copy"), at offset 500,000 of the 1,000,000
 * catalogue, by page number and by the cursor of the page before; timed requests of each.
 */
const DEEP_PAGE_QUERY = 'sort_by=published_at+asc&per_page=100';
const DEEP_PAGE = 5001;
const DEEP_PAGE_RUNS = 30;

export interface SearchQueryResult {
  total?: number;
  total_relation?: string;
  service: LoadResult;
  direct: LoadResult;
  p50_ratio: number;
}

export interface DeepPageResult {
  query: string;
  offset: number;
  page: LoadResult;
  after: LoadResult;
}

/** By catalogue size (`offers_100000`, `offers_1000000`), and the deep page. */
export type SearchResult = Record<string, { seed_seconds: number; queries: Record<string, SearchQueryResult> }> & {
  deep_page?: DeepPageResult;
};

export async function benchSearch(bench: BenchStack): Promise<SearchResult> {
  const search: SearchResult = {};
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    let seeded = 0;
    for (const size of SEARCH_SIZES) {
      say(`search: seeding to ${size} approved offers…`);
      const t = performance.now();
      await seedCatalogue(bench.services.db, bench.sub.clientId, size - seeded);
      const seedSeconds = round1((performance.now() - t) / 1000);
      seeded = size;
      const categories = await categoryTree(bench.services.db);
      const queries: Record<string, SearchQueryResult> = {};
      for (const qs of SEARCH_QUERIES) queries[qs] = await benchQuery(bench, agent, { size, qs, categories });
      search[`offers_${size}`] = { seed_seconds: seedSeconds, queries };
      if (size === 1_000_000)
        search.deep_page = await benchDeepPage(`${bench.base}/distribution/beta/offers?${DEEP_PAGE_QUERY}`, bench.dist.key, agent);
    }
  } finally {
    agent.destroy();
  }
  return search;
}

/** One query of the set (`qs`, 50 a page) at catalogue `size`, through HTTP and as the query function called directly. */
async function benchQuery(
  bench: BenchStack,
  agent: http.Agent,
  { size, qs, categories }: { size: number; qs: string; categories: Awaited<ReturnType<typeof categoryTree>> },
): Promise<SearchQueryResult> {
  const { services, dist } = bench;
  const query = DistributionOfferQuery.parse({ ...Object.fromEntries(new URLSearchParams(qs)), per_page: '50' });
  const { centre, byCity } = await searchCentre(services, query);
  let answer: { total?: number; total_relation?: string } = {};
  const serviceOnce = async () => {
    const res = await get<typeof answer>(`${bench.base}/distribution/beta/offers?${qs}&per_page=50`, dist.key, agent);
    // Parsed once: the timed requests read the answer without parsing it.
    if (res.status === 200 && answer.total === undefined) answer = res.body();
    return res.status === 200;
  };
  const directOnce = async () => {
    await searchDistributionOffers(services.db, offerSearch(query, categories, new Date(), dist.clientId, centre, byCity));
    return true;
  };
  say(`search: ${size} offers, ${qs || '(defaults)'}…`);
  await runLoad(20, 4, serviceOnce);
  await runLoad(20, 4, directOnce);
  const [service, direct] = await runPaired(SEARCH_RUNS, 4, 3, serviceOnce, directOnce);
  return { total: answer.total, total_relation: answer.total_relation, service, direct, p50_ratio: round3(service.p50 / direct.p50) };
}

/** A GET through `agent` with the distribution key: the status, and the body to parse when wanted. */
function get<T>(url: string, key: string, agent: http.Agent): Promise<{ status: number; body: () => T }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { 'x-service-api-key': key } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: () => JSON.parse(Buffer.concat(chunks).toString()) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/**
 * The page at offset (DEEP_PAGE - 1) × 100 of `url` by `page` and by `after` (the next_cursor of the
 * page before), service p50 of each through HTTP; the two must show the same offers.
 */
async function benchDeepPage(url: string, key: string, agent: http.Agent): Promise<DeepPageResult> {
  type Page = { offers: { id: string }[]; next_cursor: string | null };
  const page = async (query: string) => {
    const res = await get<Page>(`${url}&${query}`, key, agent);
    return { status: res.status, body: res.body() };
  };
  say(`search: the page at offset ${(DEEP_PAGE - 1) * 100}, by page and by after…`);
  const before = await page(`page=${DEEP_PAGE - 1}`);
  const after = `after=${before.body.next_cursor}`;
  const [byPage, byAfter] = await Promise.all([page(`page=${DEEP_PAGE}`), page(after)]);
  const ids = (r: typeof byPage) => r.body.offers.map((o) => o.id).join();
  if (byPage.status !== 200 || ids(byPage) !== ids(byAfter) || byPage.body.offers.length !== 100)
    throw new Error(`deep page: page ${DEEP_PAGE} and its cursor disagree (${byPage.status}, ${byAfter.status})`);
  // Each timed answer is parsed, as a client reading the page would.
  const once = (query: string) => async () => (await page(query)).status === 200;
  await runLoad(5, 2, once(`page=${DEEP_PAGE}`));
  await runLoad(5, 2, once(after));
  const [byNumber, byCursor] = await runPaired(DEEP_PAGE_RUNS, 2, 3, once(`page=${DEEP_PAGE}`), once(after));
  return { query: DEEP_PAGE_QUERY, offset: (DEEP_PAGE - 1) * 100, page: byNumber, after: byCursor };
}
