import { buildApp } from '../api/app';
import { freePort } from '../platform/free-port';
import type { RateLimitCounts } from '../services/deps';
import { createApiKey } from '../services/api-clients';
import { say, type BenchStack } from './bench-stack';
import { round1, round3, runPaired, type LoadResult } from './load';

/*
 * What the shared rate limit costs per request (issue 33): the same cheap route, with the same
 * keys, through the service's API (counts in Postgres: a peek at the address's bad-key count and a
 * count of the key, each a statement on the limit's own pool) and through a second API on the same
 * services whose counts answer at once without storing anything (the limit off; the plugin's own
 * bookkeeping, microseconds, stays in both). Alternating batches, in one run.
 */

/** The route: a key check (cached) and a one-row page, so the limit's share is not hidden. */
const ROUTE = '/distribution/beta/categories?per_page=1';
const KEYS = 8;

export interface RateLimitBenchResult {
  route: string;
  keys: number;
  c1: RateLimitPair;
  c8: RateLimitPair;
}

interface RateLimitPair {
  limited: LoadResult;
  off: LoadResult;
  /** Requests per second with the limit ÷ without. */
  ratio: number;
  /** p50 with the limit − without, ms. */
  p50_added_ms: number;
}

const noCounts: RateLimitCounts = {
  hit: async () => ({ hits: 0, msLeft: 0 }),
  peek: async () => ({ hits: 0, msLeft: 0 }),
  close: async () => undefined,
};

export async function benchRateLimit(bench: BenchStack, stops: Array<() => Promise<unknown>>, count = 3000): Promise<RateLimitBenchResult> {
  const { services, base, config } = bench;
  const off = await buildApp({ ...services, rateLimits: noCounts });
  stops.push(() => off.close());
  const port = await freePort();
  await off.listen({ port, host: '127.0.0.1' });
  const offBase = `http://127.0.0.1:${port}`;
  const keys = await Promise.all(
    Array.from(
      { length: KEYS },
      async () => (await createApiKey(services, { iface: 'distribution', environment: config.SERVICE_ENVIRONMENT })).key,
    ),
  );
  const get = (at: string) => async (i: number) => {
    const res = await fetch(`${at}${ROUTE}`, { headers: { 'x-service-api-key': keys[i % KEYS] } });
    await res.arrayBuffer();
    return res.status === 200;
  };
  const pair = async (concurrency: number): Promise<RateLimitPair> => {
    say(`ratelimit: ${count} requests each, with the limit and without, at concurrency ${concurrency}…`);
    const [limited, without] = await runPaired(count, concurrency, 6, get(base), get(offBase));
    return { limited, off: without, ratio: round3(limited.perSecond / without.perSecond), p50_added_ms: round1(limited.p50 - without.p50) };
  };
  // Warm-up: both apps' routes compiled, the pools' connections open, the key cache filled.
  await runPaired(200, 8, 2, get(base), get(offBase));
  return { route: ROUTE, keys: KEYS, c1: await pair(1), c8: await pair(8) };
}

export function rateLimitLines(r: RateLimitBenchResult): string[] {
  const line = (c: string, p: RateLimitPair) =>
    `| ${c} | ${p.limited.perSecond} | ${p.off.perSecond} | ${p.ratio} | ${p.limited.p50} | ${p.off.p50} | ${p.limited.p99} | ${p.off.p99} | ${p.limited.errors + p.off.errors} |`;
  return [
    '',
    '## Rate limit',
    '',
    `\`GET ${r.route}\` with ${r.keys} keys, counted in Postgres vs. the limit off, alternating batches.`,
    '',
    '| concurrency | req/s limited | req/s off | ratio | p50 limited | p50 off | p99 limited | p99 off | errors |',
    '|---|---|---|---|---|---|---|---|---|',
    line('1', r.c1),
    line('8', r.c8),
  ];
}
