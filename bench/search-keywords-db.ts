import os from 'node:os';
import { Client } from '@temporalio/client';
import { buildApp } from '../api/app';
import { businessMetrics } from '../platform/metrics';
import { createLogger } from '../platform/logger';
import { createObjectStore } from '../platform/object-store';
import { createApiKey } from '../services/api-clients';
import { createDb } from '../store/db';
import { createRateLimitCounts } from '../store/rate-limits';
import type { BenchStack } from './bench-stack';
import { benchConfig } from './bench-config';
import { writeResults } from './report';
import { commitMeasured, mergeResults, readPrevious } from './results-merge';
import { benchKeywordSearch } from './search-keywords';

/*
 * `node --import tsx bench/search-keywords-db.ts <database url>`: the keyword section
 * (bench/search-keywords.ts) against a catalogue already seeded by bench/search-db.ts, without
 * seeding a fresh stack (about half an hour at a million offers on the shared machine). The API is
 * built in this process on that database as main/wiring.ts builds it, with the bench's settings,
 * and listens on a free port; a search reaches neither Temporal nor the object store (they connect
 * on first use, and nothing here uses them). Its results are merged into bench/results/latest.json
 * as `npm run bench -- keywords` would.
 */
async function main() {
  const [url] = process.argv.slice(2);
  if (!url) throw new Error('usage: bench/search-keywords-db.ts <database url of bench/search-db.ts>');
  const config = benchConfig({ DATABASE_URL: url, SERVICE_ENVIRONMENT: 'sandbox' });
  const db = createDb(url, config.DATABASE_POOL_SIZE);
  const log = createLogger('silent');
  const rateLimits = createRateLimitCounts(url, log);
  const store = createObjectStore({ endpoint: 'http://offline.invalid', accessKey: '-', secretKey: '-', region: 'us-east-1', bucket: '-' });
  const services = { config, db, temporal: new Client(), store, log, metrics: businessMetrics, rateLimits };
  const app = await buildApp(services);
  try {
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const dist = await createApiKey(services, { iface: 'distribution', environment: 'sandbox' });
    const bench = { services, base: address, dist, sub: { clientId: 'cli_search_bench' } } as unknown as BenchStack;
    const at = new Date().toISOString();
    const keywordSearch = await benchKeywordSearch(bench);
    writeResults(
      mergeResults(readPrevious(), { machine: { cpus: os.cpus().length, node: process.version }, at, keywordSearch }, commitMeasured()),
      true,
    );
  } finally {
    await app.close();
    await Promise.all([db.destroy(), rateLimits.close()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
