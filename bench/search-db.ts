import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { startEmbeddedPostgres } from '../infra/local/postgres';
import { createDb } from '../store/db';
import { migrateToLatest } from '../store/migrate';
import { seedCatalogue } from './seed';

/*
 * `node --import tsx bench/search-db.ts <data dir> <port> <offers>` starts a Postgres of its own (no
 * Temporal, no API), migrates it, seeds the bench's catalogue up to <offers> (bench/seed.ts) and
 * keeps running (Ctrl-C stops it), printing its URL: a database to read the search's plans on
 * (bench/search-plans.ts, psql `EXPLAIN (ANALYZE, BUFFERS)`) while changing indexes or queries.
 * Run again with the same data dir to reuse the catalogue (and to apply new migrations).
 */
async function main() {
  const [dataDir, port = '55432', offers = '1000000'] = process.argv.slice(2);
  if (!dataDir) throw new Error('usage: bench/search-db.ts <data dir> [port] [offers]');
  fs.mkdirSync(dataDir, { recursive: true });
  const pg = await startEmbeddedPostgres({ dataDir: path.resolve(dataDir), port: Number(port) });
  const url = pg.url;
  const db = createDb(url, 4);
  await migrateToLatest(db);
  const clientId = 'cli_search_bench';
  await sql`insert into api_clients (id, name, interface, environment, key_hash, key_prefix)
    values (${clientId}, 'search bench', 'submission', 'sandbox', 'search-bench', 'sb') on conflict do nothing`.execute(db);
  const have = Number((await sql<{ n: string }>`select count(*) as n from offers where id like 'ofr_seed%'`.execute(db)).rows[0].n);
  const t = performance.now();
  if (have < Number(offers)) await seedCatalogue(db, clientId, Number(offers) - have);
  console.log(`seeded ${Number(offers) - have} in ${((performance.now() - t) / 1000).toFixed(1)} s; ${url}`);
  await db.destroy();
  const stop = () => void pg.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
