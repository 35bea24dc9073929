import os from 'node:os';
import { createApiKey } from '../services/api-clients';
import type { BenchResults } from './bench-results';
import { say, startBenchStack, type BenchStack } from './bench-stack';
import { benchBulkImports } from './bulk-imports';
import { benchBulkExports } from './bulk-exports';
import { benchCallbacks } from './callbacks';
import { benchCallbacksFanout } from './callbacks-fanout';
import { runLoad } from './load';
import { dealInput } from './offer-fixture';
import { benchOrders } from './orders';
import { benchRateLimit } from './ratelimit';
import { writeResults } from './report';
import { benchSearch } from './search';
import { benchKeywordSearch } from './search-keywords';
import { benchFeed, benchStatements } from './statements';
import { commitMeasured, mergeResults, readPrevious } from './results-merge';

/*
 * `npm run bench`: the service's costs measured side by side with a baseline doing the same work
 * without the service, in one run on one machine (ratios, since absolute times drift on a shared
 * machine). Boots its own stack (bench/bench-stack.ts), runs the sections below in order, prints a
 * table (bench/report.ts) and updates bench/results/latest.json and latest.md with the sections it ran.
 * `npm run bench -- orders search` runs only the sections named.
 */

type Stops = Array<() => Promise<unknown>>;
type Wanted = (name: string) => boolean;

/** Each section: the names that run it, and what it adds to the results. */
const SECTIONS: Array<{ names: string[]; run: (b: BenchStack, stops: Stops, wanted: Wanted) => Promise<Partial<BenchResults>> }> = [
  // The order intake and its bare-pg baseline at concurrency 1, 8 and 32; then Temporal's floor (bench/orders.ts).
  { names: ['orders'], run: async (b, stops) => ({ orders: await benchOrders(b, stops) }) },
  // The same on a real Temporal cluster (four server processes, mTLS; `npm run stack:cluster`'s), the worker apart.
  {
    names: ['cluster'],
    run: async (_b, stops) => ({ orders_cluster: await benchOrders(await startBenchStack(stops, true), stops) }),
  },
  // The distribution search at 100,000 and 1,000,000 offers against its query called directly (bench/search.ts).
  { names: ['search'], run: async (b) => ({ search: await benchSearch(b) }) },
  // Keyword search (q) at 1,000,000 offers, after the search section on its catalogue, or alone (bench/search-keywords.ts).
  { names: ['search', 'keywords'], run: async (b) => ({ keywordSearch: await benchKeywordSearch(b) }) },
  // Offer intake: offers created per second, each with its review workflow started.
  { names: ['intake'], run: async (b) => ({ intake: await benchOfferIntake(b) }) },
  // Callbacks: deliveries per second to a local receiver that answers 200 at once (bench/callbacks.ts).
  { names: ['callbacks'], run: async (b) => ({ callbacks: await benchCallbacks(b.services, b.sub.clientId) }) },
  // Callback fan-out: one offer change until 1,000 publisher endpoints have it (bench/callbacks-fanout.ts).
  {
    names: ['callbacks', 'fanout'],
    run: async (b) => ({ callbacksFanout: await benchCallbacksFanout(b.services, b.sub.clientId, say) }),
  },
  // Statements over 1,000,000 vouchers and the change feed over 10,000 events, or the feed alone (bench/statements.ts).
  { names: ['statements', 'feed'], run: async (b, _stops, wanted) => ({ statements: await benchStatementsOrFeed(b, wanted) }) },
  // Bulk work: 1,000,000 vouchers exported beside COPY, with the API's and worker's peak memory (bench/bulk-exports.ts).
  { names: ['bulk', 'bulk-exports'], run: async (b) => ({ bulkExports: await benchBulkExports(b, say) }) },
  // The shared rate limit: the same route with its counts in Postgres and with the limit off (bench/ratelimit.ts).
  {
    names: ['ratelimit'],
    run: async (b, stops) => ({ ratelimit: await benchRateLimit(b, stops, benchCount('BENCH_RATELIMIT_REQUESTS', 3000)) }),
  },
  // Bulk codes: 1,000,000 imported from a CSV upload and 1,000,000 generated, beside one COPY of the same rows (bench/bulk-imports.ts).
  { names: ['bulk', 'imports'], run: async (b) => ({ bulkImports: await benchBulkImports(b) }) },
];

async function main() {
  const names = process.argv.slice(2);
  const wanted: Wanted = (name) => names.length === 0 || names.includes(name);
  const results: BenchResults = { machine: { cpus: os.cpus().length, node: process.version }, at: new Date().toISOString() };
  // Whatever has started is stopped again, last first, however the run ends.
  const stops: Stops = [];
  try {
    const bench = await startBenchStack(stops);
    for (const section of SECTIONS) if (section.names.some(wanted)) Object.assign(results, await section.run(bench, stops, wanted));
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
  // Each section that ran replaces its own keys in the committed summary, with the date and commit.
  writeResults(mergeResults(readPrevious(), results, commitMeasured()), true);
}

/** A request count a short run may lower through the environment (`BENCH_RATELIMIT_REQUESTS=600`). */
function benchCount(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

function benchOfferIntake(bench: BenchStack) {
  say('intake: 300 offers at concurrency 8…');
  return runLoad(300, 8, async () => {
    const res = await bench.post('/submission/beta/offers', bench.sub.key, { offer: { ...dealInput(), initial_quantity: 10 } });
    await res.arrayBuffer();
    return res.status === 200;
  });
}

/** The feed is an advertiser's of its own, so it holds the seeded events and none of the other sections'. */
async function benchStatementsOrFeed(bench: BenchStack, wanted: Wanted) {
  const { services, base, sub, dist, config } = bench;
  const feedSub = await createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
  if (wanted('statements')) return benchStatements(services, base, sub, dist, feedSub, say);
  return { feed: await benchFeed(services, base, feedSub, say) };
}

main().catch((err) => {
  say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
