import fs from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../store/database';
import { searchDistributionOffers, type OfferSearch } from '../store/distribution-search';
import { offerSearch, searchCentre } from '../services/distribution-offers';
import { categoryTree } from '../store/categories';
import { DistributionOfferQuery } from '../schemas/distribution-offer';
import { SEARCH_QUERIES } from './search-queries';

/*
 * `node --import tsx bench/search-plans.ts postgres://…` prints, for each query of the search bench,
 * the statements the search runs and their `EXPLAIN (ANALYZE, BUFFERS)` plans on that database (seed
 * it with the bench's catalogue first: bench/seed.ts seedCatalogue). The plans in
 * docs/distribution-search-plans.md come from it. `--query 'state_code=CA'` picks one query.
 *
 * `--deep N` (with `--query`, 100 a page) prints the plans of page N twice: by `page=N`, then by
 * `after` (the cursor the page before hands out): what a deep page costs each way
 * (docs/distribution-search.md "Paging by cursor").
 *
 * `--cpu N` instead runs each query N times on one connection, without parallel workers, and
 * prints the CPU the Postgres backend spent per search (user + system time from /proc, so it must
 * run on the database's host with the right to read its processes): what a search costs a
 * database core, which the machine's load does not inflate the way it does wall time.
 */

async function main() {
  const url = process.argv[2] ?? process.env.DATABASE_URL;
  if (!url) throw new Error('usage: bench/search-plans.ts <postgres url> [--query <query string>]');
  const only = process.argv.includes('--query') ? process.argv[process.argv.indexOf('--query') + 1] : undefined;
  const cpuRuns = process.argv.includes('--cpu') ? Number(process.argv[process.argv.indexOf('--cpu') + 1]) : undefined;
  const deep = process.argv.includes('--deep') ? Number(process.argv[process.argv.indexOf('--deep') + 1]) : undefined;
  // One connection when measuring CPU: every statement runs in the backend whose /proc entry is read.
  const pool = new pg.Pool({ connectionString: url, max: cpuRuns ? 1 : 4 });
  if (cpuRuns) pool.on('connect', (c) => void c.query('set max_parallel_workers_per_gather = 0'));
  const statements: { sql: string; params: readonly unknown[] }[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (e) => {
      if (e.level === 'query') statements.push({ sql: e.query.sql, params: e.query.parameters });
    },
  });
  try {
    /** Runs the search, then prints `heading` (given its result) and the plans of the statements it ran. */
    const explain = async (search: OfferSearch, heading: (found: { total: number; total_relation: string }) => string) => {
      statements.length = 0;
      const found = await searchDistributionOffers(db, search);
      console.log(heading(found));
      for (const s of [...statements]) {
        const { rows } = await pool.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS off) ${s.sql}`, s.params as unknown[]);
        console.log(rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'), '\n');
      }
    };
    if (deep !== undefined) {
      const q = DistributionOfferQuery.parse({ ...Object.fromEntries(new URLSearchParams(only ?? '')), per_page: '100' });
      const tree = q.categories ? await categoryTree(db) : [];
      const { centre, byCity } = await searchCentre({ db } as never, q);
      const search = (page: number) => offerSearch({ ...q, page }, tree, new Date(), 'cli_plans', centre, byCity);
      const { next } = await searchDistributionOffers(db, search(deep - 1));
      if (!next) throw new Error(`${only}: page ${deep - 1} is the last`);
      await searchDistributionOffers(db, { ...search(1), after: next }); // warm the cache
      await explain(search(deep), () => `\n### ${only || '(defaults)'}, page ${deep} by page number`);
      await explain(
        { ...search(1), after: next },
        () => `\n### ${only || '(defaults)'}, page ${deep} by after (the cursor of page ${deep - 1})`,
      );
      return;
    }
    for (const qs of SEARCH_QUERIES.filter((q) => only === undefined || q === only)) {
      const q = DistributionOfferQuery.parse({ ...Object.fromEntries(new URLSearchParams(qs)), per_page: '50' });
      const tree = q.categories ? await categoryTree(db) : [];
      const { centre, byCity } = await searchCentre({ db } as never, q);
      const search = offerSearch(q, tree, new Date(), 'cli_plans', centre, byCity);
      await searchDistributionOffers(db, search); // warm the cache, as a running service has it
      if (cpuRuns) {
        const { rows } = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
        const before = backendCpuMs(rows[0].pid);
        const started = performance.now();
        for (let i = 0; i < cpuRuns; i++) await searchDistributionOffers(db, search);
        const cpu = (backendCpuMs(rows[0].pid) - before) / cpuRuns;
        const wall = (performance.now() - started) / cpuRuns;
        console.log(`${qs || '(defaults)'}\tPostgres CPU ${cpu.toFixed(1)} ms a search\twall ${wall.toFixed(1)} ms (${cpuRuns} runs)`);
        continue;
      }
      await explain(search, (found) => `\n### ${qs || '(defaults)'}: total ${found.total} (${found.total_relation})`);
    }
  } finally {
    await db.destroy();
  }
}

/** User + system CPU time of a process, in ms (fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 10 ms). */
function backendCpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
