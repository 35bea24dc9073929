import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { sql } from 'kysely';
import { setEndpoint } from '../store/callback-endpoints';
import { changeOfferStatus } from '../store/offers';
import { buildApp } from '../api/app';
import { categoryTree } from '../store/categories';
import { searchDistributionOffers } from '../store/distribution-search';
import { offerSearch, searchCentre } from '../services/distribution-offers';
import { DistributionOfferQuery } from '../schemas/distribution-offer';
import { createApiKey } from '../services/api-clients';
import { freePort } from '../platform/free-port';
import type { LocalWorker } from '../platform/local-worker';
import { createLogger } from '../platform/logger';
import { connectServices } from '../main';
import { stackEnv, startStackProcess, stopStackProcess } from '../infra/local/stack-process';
import { startWorker } from '../worker/main';
import { benchCallbacksFanout, type CallbacksFanoutResult } from './callbacks-fanout';
import { startCallbackReceiver } from './callback-receiver';
import { benchFeed, benchStatements, type StatementsBenchResult } from './statements';
import { benchConfig } from './bench-config';
import { runLoad, runPaired, type LoadResult } from './load';
import { cpuSnapshot, cpuSpent, subtree } from './proc-cpu';
import { seedCatalogue } from './seed';
import { approvedOffer, dealInput } from './offer-fixture';
import { floorWorkflow, pingLocalUpdate, pingUpdate } from './floor-workflow';
import { SEARCH_QUERIES } from './search-queries';

/*
 * `npm run bench`: the service's costs measured side by side with the no-orchestration limit, in
 * one run on one machine (ratios, since absolute times drift on a shared machine). Boots its own
 * stack; prints a table; writes bench/results/latest.json and latest.md.
 */

const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const ORDERS_PER_LEVEL: Record<number, number> = { 1: 150, 8: 600, 32: 1200 };

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

/** `npm run bench -- orders search` runs only those sections (default: all). */
const SECTIONS = process.argv.slice(2);
const wanted = (name: string) => SECTIONS.length === 0 || SECTIONS.includes(name);

async function main() {
  say('starting the stack (embedded Postgres, Temporal dev server, MinIO)…');
  const stack = await startStackProcess({ prefix: 'offer-marketplace-bench-' });
  // Whatever has started is stopped again, last first, however the run ends.
  const stops: Array<() => Promise<unknown>> = [() => stopStackProcess(stack.pid, stack.dataDir)];
  const results: Record<string, unknown> = {
    machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
    at: new Date().toISOString(),
  };
  try {
    const config = benchConfig(stack);
    const services = await connectServices(config, stack.endpoints, createLogger('silent'));
    stops.push(() => services.close());
    // The worker in this process, as `npm start` runs it (orders start eagerly); BENCH_WORKER=separate
    // puts it in a process of its own, as the production layout does (docs/deployment.md), where
    // it does not share the API's (and the load generator's) event loop and orders cannot start eagerly.
    let workerPid: number | undefined;
    const inline = process.env.BENCH_WORKER !== 'separate';
    if (inline) {
      const worker = await startWorker({ deps: services, endpoints: stack.endpoints, taskQueue: config.TEMPORAL_TASK_QUEUE });
      stops.push(() => worker.shutdown());
    } else {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'main', 'worker-only.ts')], {
        env: { ...process.env, ...stackEnv(stack), LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '20' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      workerPid = child.pid;
      stops.push(async () => {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      });
    }
    // The per-order design (ORDER_INTAKE=per-order) on this API, whatever the default is; the
    // sharded intake on the second one below.
    const app = await buildApp({ ...services, config: { ...config, ORDER_INTAKE: 'per-order' } });
    stops.push(() => app.close());
    const port = await freePort();
    await app.listen({ port, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${port}`;
    // The other order design in the same run (issue 23): a second API on the same services whose
    // orders go to the sharded intake workflows (ORDER_INTAKE=sharded), on the same worker(s).
    // Sharded, one order per Update (ORDER_INTAKE_COALESCE=false: the design before coalescing), on
    // the shard count it was measured best with (BENCH_UNCOALESCED_SHARDS, 16 unless told).
    const uncoalescedShards = Number(process.env.BENCH_UNCOALESCED_SHARDS ?? 16);
    const shardedApp = await buildApp({
      ...services,
      config: { ...config, ORDER_INTAKE: 'sharded', ORDER_INTAKE_COALESCE: false, ORDER_INTAKE_SHARDS: uncoalescedShards },
    });
    stops.push(() => shardedApp.close());
    const shardedPort = await freePort();
    await shardedApp.listen({ port: shardedPort, host: '127.0.0.1' });
    // Sharded and coalesced (ORDER_INTAKE_COALESCE=true): a third API, the orders it holds for a
    // busy shard sent together as one Update.
    const coalescedApp = await buildApp({ ...services, config: { ...config, ORDER_INTAKE: 'sharded', ORDER_INTAKE_COALESCE: true } });
    stops.push(() => coalescedApp.close());
    const coalescedPort = await freePort();
    await coalescedApp.listen({ port: coalescedPort, host: '127.0.0.1' });
    const coalescedBase = `http://127.0.0.1:${coalescedPort}`;
    const sub = await createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
    const dist = await createApiKey(services, { iface: 'distribution', environment: config.SERVICE_ENVIRONMENT });
    const post = (url: string, key: string, body: unknown, at = base) =>
      fetch(`${at}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': key },
        body: JSON.stringify(body),
      });

    // Orders: end to end through HTTP and the order-fulfilment workflow, against the same
    // transaction (take stock, insert order, item and voucher) run straight from Node with pg.
    const orders: Record<string, unknown> = {};
    const orderErrors: Record<string, number> = {};
    const placeOne =
      (offerId: string, tag: string, at = base) =>
      async (i: number) => {
        const res = await post(
          '/distribution/beta/orders',
          dist.key,
          {
            order: {
              order_number: `bench-${tag}-${i}-${crypto.randomUUID()}`,
              customer_name: 'Bench Customer',
              items: [{ offer_id: offerId, quantity: 1 }],
            },
          },
          at,
        );
        if (res.status === 200) {
          await res.arrayBuffer();
          return true;
        }
        // What an error was, counted by design and answer: an error count alone explains nothing.
        const body = (await res.json().catch(() => undefined)) as { errors?: Array<{ code?: string }> } | undefined;
        const design = at === base ? 'per-order' : at === coalescedBase ? 'coalesced' : 'sharded';
        const what = `${design} ${res.status} ${body?.errors?.[0]?.code ?? ''}`.trim();
        orderErrors[what] = (orderErrors[what] ?? 0) + 1;
        return false;
      };
    const shardedBase = `http://127.0.0.1:${shardedPort}`;
    /** CPU of every process of the stack (this API process with its load generator, the worker, Temporal, Postgres) around `run`, from /proc. */
    const withCpu = async (run: () => Promise<LoadResult>, workerRoot = workerPid) => {
      const cpuBefore = cpuSnapshot(process.pid);
      const result = await run();
      const cpuAfter = cpuSnapshot(process.pid);
      const worker = workerRoot ? subtree(cpuAfter, workerRoot) : new Set<number>();
      const byProcess = cpuSpent(cpuBefore, cpuAfter, (p) =>
        p.pid === process.pid ? 'api_and_load' : worker.has(p.pid) ? 'worker' : /^postgres|^postmaster/.test(p.comm) ? 'postgres' : p.comm,
      );
      const total = Object.values(byProcess).reduce((a, b) => a + b, 0);
      const placed = Math.max(1, result.count - result.errors);
      const cpu = {
        orders: placed,
        ms_per_order: Object.fromEntries(Object.entries(byProcess).map(([k, v]) => [k, round1(v / placed)])),
        total_ms_per_order: round1(total / placed),
      };
      return { result, cpu };
    };
    // The floor's worker (bench/floor-worker.ts), started now so that its bundling is over before
    // anything is measured.
    let floorWorker: ChildProcess | undefined;
    let floorReady: Promise<void> = Promise.resolve();
    if (wanted('orders')) {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(__dirname, 'floor-worker.ts'), stack.endpoints.temporalAddress, FLOOR_TASK_QUEUE],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      floorWorker = child;
      stops.push(async () => {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      });
      floorReady = new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        child.once('exit', (code) => reject(new Error(`the floor worker exited (${code})`)));
      });
    }
    if (wanted('orders')) {
      // Warm up: the worker bundles its workflows at start, and the first orders of a fresh
      // process pay for compiling and connecting; none of that belongs in the measure.
      const warm = await approvedOffer(services.db, sub.clientId, dealInput());
      say('orders: warming up (waiting for the worker, then 100 orders)…');
      for (let i = 0; !(await placeOne(warm, 'warm')(i)); i++) if (i > 300) throw new Error('no order placed after warm-up');
      await runLoad(100, 8, placeOne(warm, 'warm'));
      say('orders: warming up the sharded intake (100 orders)…');
      await runLoad(100, 8, placeOne(warm, 'warm-sharded', shardedBase));
      say('orders: warming up the coalesced sharded intake (100 orders)…');
      await runLoad(100, 8, placeOne(warm, 'warm-coalesced', coalescedBase));
      await floorReady;
      await runLoad(200, 8, (i) => bareOrder(services.db, dist.clientId, warm, `warm-base-${i}`));
      // Only the measured runs' errors are reported (the warm-up waits through the worker's start).
      for (const k of Object.keys(orderErrors)) delete orderErrors[k];
    }
    for (const c of wanted('orders') ? [1, 8, 32] : []) {
      const n = ORDERS_PER_LEVEL[c];
      const offerId = await approvedOffer(services.db, sub.clientId, dealInput());
      say(`orders: ${n} at concurrency ${c} through the service (per-order workflows)…`);
      // CPU of the stack around the concurrency-32 runs of each design.
      const { result: service, cpu } = await withCpu(() => runLoad(n, c, placeOne(offerId, `c${c}`)));
      if (c === 32) orders.cpu_c32 = cpu;
      const shardedOffer = await approvedOffer(services.db, sub.clientId, dealInput());
      say(`orders: ${n} at concurrency ${c} through the service (sharded intake)…`);
      const { result: sharded, cpu: shardedCpu } = await withCpu(() => runLoad(n, c, placeOne(shardedOffer, `c${c}-sh`, shardedBase)));
      if (c === 32) orders.cpu_c32_sharded = shardedCpu;
      const coalescedOffer = await approvedOffer(services.db, sub.clientId, dealInput());
      say(`orders: ${n} at concurrency ${c} through the service (sharded intake, coalesced)…`);
      const { result: coalesced, cpu: coalescedCpu } = await withCpu(() =>
        runLoad(n, c, placeOne(coalescedOffer, `c${c}-co`, coalescedBase)),
      );
      if (c === 32) orders.cpu_c32_coalesced = coalescedCpu;
      // How many orders an Update carried: the coalesced orders' request ids name their Update.
      const carried = await sql<{ orders: string; updates: string }>`
        select count(*) as orders, count(distinct split_part(request_id, '/', 1)) as updates
        from orders where order_number like ${`bench-c${c}-co-%`}`.execute(services.db);
      const { orders: placedCoalesced, updates } = carried.rows[0];
      // With the worker in this process, orders start eagerly; the same orders again with eager
      // start off (Update-with-Start, the path of an API without a worker) show what it brings.
      let noEager: Record<string, unknown> = {};
      if (inline) {
        const uwsOffer = await approvedOffer(services.db, sub.clientId, dealInput());
        say(`orders: ${n} at concurrency ${c} through the service, eager start off…`);
        const uws = await withoutEagerStart(services, () => runLoad(n, c, placeOne(uwsOffer, `c${c}-uws`)));
        noEager = {
          service_update_with_start: uws,
          eager_gain: { per_second: round3(service.perSecond / uws.perSecond), p50: round3(service.p50 / uws.p50) },
        };
      }
      const baselineOffer = await approvedOffer(services.db, sub.clientId, dealInput());
      say(`orders: ${n} at concurrency ${c} as bare pg transactions…`);
      const baseline = await runLoad(n, c, (i) => bareOrder(services.db, dist.clientId, baselineOffer, `base-${c}-${i}`));
      orders[`c${c}`] = {
        service,
        baseline,
        ratio: round3(service.perSecond / baseline.perSecond),
        service_sharded: sharded,
        ratio_sharded: round3(sharded.perSecond / baseline.perSecond),
        service_coalesced: coalesced,
        ratio_coalesced: round3(coalesced.perSecond / baseline.perSecond),
        coalesced_orders_per_update: round3(Number(placedCoalesced) / Math.max(1, Number(updates))),
        ...noEager,
      };
    }
    if (wanted('orders')) {
      // The floor: what Temporal and a worker alone cost for one Update-with-Start round trip to a
      // long-running workflow that does nothing (ping), or only runs a local activity that does
      // nothing (pingLocal), from this process's client, with no HTTP, API or database on the path.
      const client = services.temporal;
      for (const [name, update] of [
        ['ping', pingUpdate],
        ['ping_local', pingLocalUpdate],
      ] as const) {
        const once = (tag: string, shards: number) => async (i: number) => {
          // A workflow takes at most 100 of them, as an intake run does (ORDER_INTAKE_ORDERS_PER_RUN).
          const workflowId = `floor-${name}-${tag}-${i % shards}-${Math.floor(i / (shards * 100))}`;
          return (await floorPing(client, update, workflowId, i)) === i;
        };
        say(`floor: ${name} updates at concurrency 1 and 32…`);
        await runLoad(20, 1, once('warm', 1));
        const c1 = await withCpu(() => runLoad(ORDERS_PER_LEVEL[1], 1, once('c1', 1)), floorWorker?.pid);
        const c32 = await withCpu(() => runLoad(ORDERS_PER_LEVEL[32], 32, once('c32', 16)), floorWorker?.pid);
        orders[`floor_${name}`] = { c1: c1.result, cpu_c1: c1.cpu, c32: c32.result, cpu_c32: c32.cpu };
      }
    }
    if (wanted('orders'))
      results.orders = {
        layout: inline ? 'one-process' : 'separate',
        shards: uncoalescedShards,
        shards_coalesced: config.ORDER_INTAKE_SHARDS,
        orders_per_run: config.ORDER_INTAKE_ORDERS_PER_RUN,
        errors: orderErrors,
        ...orders,
      };

    // Search (issue 24): the query set on a catalogue of 100,000 then 1,000,000 offers seeded by
    // set-based SQL (bench/seed.ts seedCatalogue), each query through HTTP against the same query
    // function called directly. The client is node:http with keep-alive (as a publisher's server
    // would call us), not fetch: in this process, undici's fetch cost ~2-4 ms a request of its own.
    // Both sides are warmed up, then timed in alternating batches so the shared machine's changing
    // load weighs on both alike.
    const search: Record<string, unknown> = {};
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    let seeded = 0;
    for (const size of wanted('search') ? SEARCH_SIZES : []) {
      say(`search: seeding to ${size} approved offers…`);
      const t = performance.now();
      await seedCatalogue(services.db, sub.clientId, size - seeded);
      const seedSeconds = round1((performance.now() - t) / 1000);
      seeded = size;
      const categories = await categoryTree(services.db);
      const queries: Record<string, unknown> = {};
      for (const qs of SEARCH_QUERIES) {
        const url = `/distribution/beta/offers?${qs}&per_page=50`;
        const query = DistributionOfferQuery.parse({ ...Object.fromEntries(new URLSearchParams(qs)), per_page: '50' });
        const { centre, byCity } = await searchCentre(services, query);
        let answer: { total?: number; total_relation?: string } = {};
        const serviceOnce = () =>
          new Promise<boolean>((resolve, reject) => {
            http
              .get(`${base}${url}`, { agent, headers: { 'x-service-api-key': dist.key } }, (res) => {
                const chunks: Buffer[] = [];
                res.on('data', (c: Buffer) => chunks.push(c));
                res.on('end', () => {
                  if (res.statusCode === 200 && answer.total === undefined) answer = JSON.parse(Buffer.concat(chunks).toString());
                  resolve(res.statusCode === 200);
                });
                res.on('error', reject);
              })
              .on('error', reject);
          });
        const directOnce = async () => {
          await searchDistributionOffers(services.db, offerSearch(query, categories, new Date(), dist.clientId, centre, byCity));
          return true;
        };
        say(`search: ${size} offers, ${qs || '(defaults)'}…`);
        await runLoad(20, 4, serviceOnce);
        await runLoad(20, 4, directOnce);
        const [service, direct] = await runPaired(SEARCH_RUNS, 4, 3, serviceOnce, directOnce);
        queries[qs] = {
          total: answer.total,
          total_relation: answer.total_relation,
          service,
          direct,
          p50_ratio: round3(service.p50 / direct.p50),
        };
      }
      search[`offers_${size}`] = { seed_seconds: seedSeconds, queries };
      if (size === 1_000_000)
        search.deep_page = await benchDeepPage(`${base}/distribution/beta/offers?${DEEP_PAGE_QUERY}`, dist.key, agent);
    }
    agent.destroy();
    if (wanted('search')) results.search = search;

    // Offer intake: offers created per second, each with its review workflow started.
    if (wanted('intake')) {
      say('intake: 300 offers at concurrency 8…');
      results.intake = await runLoad(300, 8, async () => {
        const res = await post('/submission/beta/offers', sub.key, { offer: { ...dealInput(), initial_quantity: 10 } });
        await res.arrayBuffer();
        return res.status === 200;
      });
    }

    // Callbacks: deliveries per second to a local receiver that answers 200 at once.
    if (wanted('callbacks')) results.callbacks = await benchCallbacks(services, sub.clientId);
    // Callback fan-out: one offer change until 1,000 publisher endpoints have it (bench/callbacks-fanout.ts).
    if (wanted('callbacks') || wanted('fanout')) results.callbacksFanout = await benchCallbacksFanout(services, sub.clientId, say);
    // Statements over 1,000,000 vouchers and the change feed over 10,000 events (bench/statements.ts).
    // The feed is an advertiser's of its own, so it holds the seeded events and none of the other sections'.
    const feedSub = () => createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
    if (wanted('statements')) results.statements = await benchStatements(services, base, sub, dist, await feedSub(), say);
    // The feed alone (the statements section runs it too): `npm run bench -- feed`.
    else if (wanted('feed')) results.statements = { feed: await benchFeed(services, base, await feedSub(), say) };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
  results.summary = summarize(results);
  // A partial run (some sections only) is printed but does not replace the recorded full results.
  writeResults(results, SECTIONS.length === 0);
}

/**
 * The page at offset (DEEP_PAGE - 1) × 100 of `url` by `page` and by `after` (the next_cursor of the
 * page before), service p50 of each through HTTP; the two must show the same offers.
 */
async function benchDeepPage(url: string, key: string, agent: http.Agent) {
  const get = (query: string) =>
    new Promise<{ status: number; body: { offers: { id: string }[]; next_cursor: string | null } }>((resolve, reject) => {
      http
        .get(`${url}&${query}`, { agent, headers: { 'x-service-api-key': key } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  say(`search: the page at offset ${(DEEP_PAGE - 1) * 100}, by page and by after…`);
  const before = await get(`page=${DEEP_PAGE - 1}`);
  const after = `after=${before.body.next_cursor}`;
  const [byPage, byAfter] = await Promise.all([get(`page=${DEEP_PAGE}`), get(after)]);
  const ids = (r: typeof byPage) => r.body.offers.map((o) => o.id).join();
  if (byPage.status !== 200 || ids(byPage) !== ids(byAfter) || byPage.body.offers.length !== 100)
    throw new Error(`deep page: page ${DEEP_PAGE} and its cursor disagree (${byPage.status}, ${byAfter.status})`);
  const once = (query: string) => async () => (await get(query)).status === 200;
  await runLoad(5, 2, once(`page=${DEEP_PAGE}`));
  await runLoad(5, 2, once(after));
  const [page, cursor] = await runPaired(DEEP_PAGE_RUNS, 2, 3, once(`page=${DEEP_PAGE}`), once(after));
  return { query: DEEP_PAGE_QUERY, offset: (DEEP_PAGE - 1) * 100, page, after: cursor };
}

/** The floor's task queue (bench/floor-worker.ts). */
const FLOOR_TASK_QUEUE = 'bench-floor';

/** One Update-with-Start to a floor workflow (started when missing, joined otherwise), answered with `n`. */
function floorPing(client: Client, update: typeof pingUpdate, workflowId: string, n: number): Promise<number> {
  const startWorkflowOperation = new WithStartWorkflowOperation(floorWorkflow, {
    workflowId,
    taskQueue: FLOOR_TASK_QUEUE,
    args: [],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return client.workflow.executeUpdateWithStart(update, { startWorkflowOperation, args: [n] });
}

/** Runs `work` with this process's orders started through Update-with-Start, as if no worker ran here. */
async function withoutEagerStart<T, P>(services: { localWorker?: LocalWorker<P> }, work: () => Promise<T>): Promise<T> {
  const link = services.localWorker!;
  const { client, taskQueue } = link;
  link.client = undefined;
  try {
    return await work();
  } finally {
    Object.assign(link, { client, taskQueue });
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The issue-11 targets, one number each, under `summary` in latest.json so progress can be
 * followed across runs (null when its section did not run). `callbacks_fanout_1000_s` is read from
 * `results.callbacksFanout.seconds`, which the callback fan-out scenario writes when it runs.
 */
function summarize(results: Record<string, unknown>) {
  type Level = {
    service: LoadResult;
    ratio: number;
    service_sharded?: LoadResult;
    ratio_sharded?: number;
    service_coalesced?: LoadResult;
    ratio_coalesced?: number;
  };
  type Cpu = { total_ms_per_order: number; ms_per_order: Record<string, number> };
  type Floor = { c1: LoadResult; cpu_c1: Cpu };
  type Orders = Record<string, Level> & {
    cpu_c32?: Cpu;
    cpu_c32_sharded?: Cpu;
    cpu_c32_coalesced?: Cpu;
    floor_ping?: Floor;
    floor_ping_local?: Floor;
  };
  /** Temporal's and the floor worker's CPU per update (what the floor measures; the client's is the load). */
  const floorCpu = (f?: Floor) => (f ? round1((f.cpu_c1.ms_per_order.temporal ?? 0) + (f.cpu_c1.ms_per_order.worker ?? 0)) : null);
  type Search = Record<string, { queries: Record<string, { service: LoadResult; p50_ratio: number }> }> & {
    deep_page?: { page: LoadResult; after: LoadResult };
  };
  const orders = results.orders as Orders | undefined;
  const search = results.search as Search | undefined;
  const fanout = results.callbacksFanout as { seconds?: number } | undefined;
  const statements = results.statements as (Partial<StatementsBenchResult> & Pick<StatementsBenchResult, 'feed'>) | undefined;
  const at100k = search?.offers_100000?.queries;
  const at1m = search?.offers_1000000?.queries;
  const defaults = SEARCH_QUERIES[SEARCH_QUERIES.length - 1];
  return {
    orders_c32_ratio: orders?.c32?.ratio ?? null,
    orders_cpu_ms_per_order: orders?.cpu_c32?.total_ms_per_order ?? null,
    orders_c1_p50_ms: orders?.c1?.service.p50 ?? null,
    orders_c8_p99_ms: orders?.c8?.service.p99 ?? null,
    orders_sharded_c32_ratio: orders?.c32?.ratio_sharded ?? null,
    orders_sharded_cpu_ms_per_order: orders?.cpu_c32_sharded?.total_ms_per_order ?? null,
    orders_sharded_c1_p50_ms: orders?.c1?.service_sharded?.p50 ?? null,
    orders_sharded_c8_p99_ms: orders?.c8?.service_sharded?.p99 ?? null,
    orders_coalesced_c32_ratio: orders?.c32?.ratio_coalesced ?? null,
    orders_coalesced_cpu_ms_per_order: orders?.cpu_c32_coalesced?.total_ms_per_order ?? null,
    orders_coalesced_c1_p50_ms: orders?.c1?.service_coalesced?.p50 ?? null,
    orders_coalesced_c8_p99_ms: orders?.c8?.service_coalesced?.p99 ?? null,
    orders_floor_c1_p50_ms: orders?.floor_ping?.c1.p50 ?? null,
    orders_floor_cpu_ms_per_update: floorCpu(orders?.floor_ping),
    orders_floor_local_c1_p50_ms: orders?.floor_ping_local?.c1.p50 ?? null,
    orders_floor_local_cpu_ms_per_update: floorCpu(orders?.floor_ping_local),
    search_100k_ratio: at100k?.[SEARCH_QUERIES[0]]?.p50_ratio ?? null,
    search_1m_worst_p50_ms: at1m ? Math.max(...Object.values(at1m).map((q) => q.service.p50)) : null,
    search_growth_100k_1m: at100k && at1m ? round3(at1m[defaults].service.p50 / at100k[defaults].service.p50) : null,
    search_category_100k_p50_ms: at100k?.['categories=2']?.service.p50 ?? null,
    // The page at offset 500,000 of the first copy's query at 1,000,000 offers: by page number, by cursor.
    search_deep_page_1m_p50_ms: search?.deep_page?.page.p50 ?? null,
    search_deep_after_1m_p50_ms: search?.deep_page?.after.p50 ?? null,
    callbacks_fanout_1000_s: fanout?.seconds ?? null,
    // The slower of the two statements through HTTP; the feed's first whole read (it numbers the events too).
    statement_1m_vouchers_s:
      statements?.submission && statements.distribution
        ? Math.max(statements.submission.service_s, statements.distribution.service_s)
        : null,
    // Events numbered as they come (a reader polls), read whole; the first read, which also numbers
    // all 10,000 at once, is beside it in the results.
    feed_10k_events_s: statements?.feed.second_read_s ?? null,
  };
}

/** The order's database work alone: what the service does per order, minus HTTP and Temporal. */
async function bareOrder(db: import('../store/db').Db, clientId: string, offerId: string, orderNumber: string): Promise<boolean> {
  await db.transaction().execute(async (trx) => {
    const taken = await trx
      .updateTable('offers')
      .set((eb) => ({ quantity_in_stock: eb('quantity_in_stock', '-', 1), updated_at: new Date() }))
      .where('id', '=', offerId)
      .where('quantity_in_stock', '>=', 1)
      .returning('id')
      .executeTakeFirst();
    if (!taken) throw new Error('sold out');
    const orderId = `ord_${crypto.randomBytes(12).toString('base64url')}`;
    await trx
      .insertInto('orders')
      .values({
        id: orderId,
        client_id: clientId,
        order_number: orderNumber,
        workflow_id: `bench:${orderNumber}`,
        customer_name: 'Bench Customer',
        status: 'active',
      } as never)
      .execute();
    await trx
      .insertInto('order_items')
      .values({ order_id: orderId, position: 0, offer_id: offerId, quantity: 1 } as never)
      .execute();
    const code = crypto.randomBytes(10).toString('hex').toUpperCase();
    await trx
      .insertInto('vouchers')
      .values({
        id: `vch_${crypto.randomBytes(12).toString('base64url')}`,
        offer_id: offerId,
        order_id: orderId,
        client_id: clientId,
        counts_stock: true,
        redemption_code: code,
        barcode: code,
        customer_name: 'Bench Customer',
        status: 'acquired',
        expiration_date: '2099-12-31',
      } as never)
      .execute();
  });
  return true;
}

async function benchCallbacks(services: Awaited<ReturnType<typeof connectServices>>, clientId: string) {
  const N = 200;
  // Only the suspensions and resumptions below count, each event once: the client's endpoint also
  // hears of the offers' creation and approval, and a retried delivery repeats an event.
  const counted = new Set<string>();
  let offerIds = new Set<string>();
  let done: () => void = () => undefined;
  const all = new Promise<void>((r) => (done = r));
  const receiver = await startCallbackReceiver((event) => {
    const made = event.type === 'offer.status_changed' && ['suspended', 'resumed'].includes(event.data?.new_status ?? '');
    if (!made || !offerIds.has(event.data?.offer?.id ?? '') || counted.has(event.id)) return;
    counted.add(event.id);
    if (counted.size === N) done();
  });
  const { port } = receiver;
  try {
    await setEndpoint(services.db, { clientId, url: `http://127.0.0.1:${port}/hook`, format: 'json', secretKeys: undefined });
    const offers = await Promise.all(Array.from({ length: N / 2 }, () => approvedOffer(services.db, clientId, dealInput())));
    offerIds = new Set(offers);
    say(`callbacks: ${N} events to a local receiver…`);
    const started = performance.now();
    for (const id of offers) {
      await changeOfferStatus(services.db, { key: `bench:${id}:suspend`, offerId: id, to: 'suspended', actor: 'advertiser' });
      await changeOfferStatus(services.db, { key: `bench:${id}:resume`, offerId: id, to: 'resumed', actor: 'advertiser' });
    }
    await Promise.race([all, new Promise((r) => setTimeout(r, 120_000))]);
    const seconds = (performance.now() - started) / 1000;
    return {
      events: N,
      delivered: counted.size,
      seconds: Math.round(seconds * 10) / 10,
      perSecond: Math.round((counted.size / seconds) * 10) / 10,
    };
  } finally {
    receiver.close();
  }
}

const SUMMARY_TARGETS: Record<string, string> = {
  orders_c32_ratio: '≥ 0.30',
  orders_cpu_ms_per_order: '≤ 12',
  orders_c1_p50_ms: '≤ 15',
  orders_c8_p99_ms: '≤ 150',
  orders_sharded_c32_ratio: '≥ 0.5 (issue 23)',
  orders_sharded_cpu_ms_per_order: '≤ 12',
  orders_sharded_c1_p50_ms: '≤ 15',
  orders_sharded_c8_p99_ms: '≤ 150',
  orders_coalesced_c32_ratio: '≥ 0.5 (issue 23)',
  orders_coalesced_cpu_ms_per_order: '≤ 12',
  orders_coalesced_c1_p50_ms: '≤ 15',
  orders_coalesced_c8_p99_ms: '≤ 150',
  orders_floor_c1_p50_ms: '(Temporal alone: an Update to a workflow that does nothing)',
  orders_floor_cpu_ms_per_update: '(Temporal + worker, at c1)',
  orders_floor_local_c1_p50_ms: '(the same, with a local activity that does nothing)',
  orders_floor_local_cpu_ms_per_update: '(Temporal + worker, at c1)',
  search_100k_ratio: '≤ 1.3',
  search_1m_worst_p50_ms: '≤ 100',
  search_growth_100k_1m: '≤ 1.5',
  search_category_100k_p50_ms: '≤ 50',
  search_deep_page_1m_p50_ms: '(by page number; for comparison)',
  search_deep_after_1m_p50_ms: '(by cursor; issue 24 deep paging: flat with depth)',
  callbacks_fanout_1000_s: '≤ 10',
  statement_1m_vouchers_s: '≤ 2',
  feed_10k_events_s: '≤ 1',
};

function writeResults(results: Record<string, unknown>, save: boolean) {
  const dir = path.join(__dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  if (save) fs.writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const row = (name: string, r: LoadResult) =>
    `| ${name} | ${r.count} | ${r.concurrency} | ${r.perSecond} | ${r.p50} | ${r.p95} | ${r.p99} | ${r.errors} |`;
  const lines = [
    '# Benchmark results',
    '',
    `Run ${results.at} on ${(results.machine as { cpus: number }).cpus} cores, Node ${(results.machine as { node: string }).node}. Reproduce with \`npm run bench\`.`,
    '',
  ];
  const summary = results.summary as Record<string, number | null>;
  lines.push('## Summary (issue 11 targets)', '', '| key | value | target |', '|---|---|---|');
  for (const [k, v] of Object.entries(summary)) lines.push(`| \`${k}\` | ${v ?? 'not run'} | ${SUMMARY_TARGETS[k]} |`);
  lines.push('');
  type Cpu = { ms_per_order: Record<string, number>; total_ms_per_order: number };
  type FloorRun = { c1: LoadResult; cpu_c1: Cpu; c32: LoadResult; cpu_c32: Cpu };
  const ordersRun = results.orders as
    | {
        cpu_c32?: Cpu;
        cpu_c32_sharded?: Cpu;
        cpu_c32_coalesced?: Cpu;
        floor_ping?: FloorRun;
        floor_ping_local?: FloorRun;
        layout?: string;
        shards?: number;
        shards_coalesced?: number;
      }
    | undefined;
  const cpu = ordersRun?.cpu_c32;
  if (cpu) {
    const sharded = ordersRun?.cpu_c32_sharded;
    const coalesced = ordersRun?.cpu_c32_coalesced;
    const names = [
      ...new Set([
        ...Object.keys(cpu.ms_per_order),
        ...Object.keys(sharded?.ms_per_order ?? {}),
        ...Object.keys(coalesced?.ms_per_order ?? {}),
      ]),
    ];
    lines.push(
      `## CPU per order at concurrency 32, by process (from /proc; layout: ${ordersRun?.layout ?? 'one-process'})`,
      '',
      '| process | per-order workflows | sharded intake, one order an Update | sharded intake, coalesced |',
      '|---|---|---|---|',
      ...names
        .sort((a, b) => (cpu.ms_per_order[b] ?? 0) - (cpu.ms_per_order[a] ?? 0))
        .map((k) => `| ${k} | ${cpu.ms_per_order[k] ?? 0} | ${sharded?.ms_per_order[k] ?? '–'} | ${coalesced?.ms_per_order[k] ?? '–'} |`),
      `| **all** | **${cpu.total_ms_per_order}** | **${sharded?.total_ms_per_order ?? '–'}** | **${coalesced?.total_ms_per_order ?? '–'}** |`,
      '',
      '`api_and_load` is the API process, which also runs the load generator (its HTTP client). CPU ms per order.',
      '',
    );
  }
  const floors = (['floor_ping', 'floor_ping_local'] as const).filter((k) => ordersRun?.[k]);
  if (floors.length) {
    lines.push(
      '## The floor: one Update-with-Start to a workflow that does nothing (no HTTP, API or database)',
      '',
      '| update | concurrency | per second | p50 ms | p99 ms | Temporal CPU ms per update | worker CPU ms per update | client CPU ms per update |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const k of floors) {
      const f = ordersRun![k]!;
      for (const [r, c] of [
        [f.c1, f.cpu_c1],
        [f.c32, f.cpu_c32],
      ] as const)
        lines.push(
          `| ${k === 'floor_ping' ? 'ping (answered at once)' : 'pingLocal (a local activity that does nothing)'} | ${r.concurrency} | ${r.perSecond} | ${r.p50} | ${r.p99} | ${c.ms_per_order.temporal ?? 0} | ${c.ms_per_order.worker ?? 0} | ${c.ms_per_order.api_and_load ?? 0} |`,
        );
    }
    lines.push('');
  }
  lines.push(
    '## Orders (POST /orders, 1 item, 1 voucher) vs the same transaction with bare pg',
    '',
    '| run | requests | concurrency | per second | p50 ms | p95 ms | p99 ms | errors |',
    '|---|---|---|---|---|---|---|---|',
  );
  type Level = {
    service: LoadResult;
    baseline: LoadResult;
    ratio: number;
    service_update_with_start?: LoadResult;
    eager_gain?: { per_second: number; p50: number };
    service_sharded?: LoadResult;
    ratio_sharded?: number;
    service_coalesced?: LoadResult;
    ratio_coalesced?: number;
    coalesced_orders_per_update?: number;
  };
  const levels = Object.entries((results.orders ?? {}) as Record<string, Level>).filter(([k]) => /^c\d+$/.test(k));
  for (const [level, o] of levels) {
    lines.push(row(`service ${level}`, o.service));
    if (o.service_update_with_start) lines.push(row(`service ${level}, eager start off`, o.service_update_with_start));
    if (o.service_sharded) lines.push(row(`service ${level}, sharded intake (${ordersRun?.shards} shards)`, o.service_sharded));
    if (o.service_coalesced)
      lines.push(
        row(
          `service ${level}, sharded intake coalesced (${ordersRun?.shards_coalesced} shards, ${o.coalesced_orders_per_update} orders an Update)`,
          o.service_coalesced,
        ),
      );
    lines.push(row(`baseline ${level}`, o.baseline));
  }
  const errors = Object.entries((results.orders as { errors?: Record<string, number> } | undefined)?.errors ?? {});
  if (errors.length) lines.push('', `Errors by design, status and code: ${errors.map(([k, v]) => `${k}: ${v}`).join(', ')}.`);
  lines.push(
    '',
    ...levels.map(
      ([l, o]) =>
        `- ${l}: service throughput = **${Math.round(o.ratio * 100)}%** of the baseline` +
        (o.ratio_sharded !== undefined ? `; sharded intake **${Math.round(o.ratio_sharded * 100)}%**` : '') +
        (o.ratio_coalesced !== undefined ? `; coalesced **${Math.round(o.ratio_coalesced * 100)}%**` : ''),
    ),
  );
  if (levels.some(([, o]) => o.eager_gain))
    lines.push(
      '',
      'The worker ran in the API process, as `npm start` runs it: orders started eagerly, and each level ran again with eager start off (Update-with-Start).',
      '',
      ...levels
        .filter(([, o]) => o.eager_gain)
        .map(([l, o]) => `- ${l}: eager start gives **${o.eager_gain!.per_second}×** the orders/s, p50 **${o.eager_gain!.p50}×**`),
    );
  lines.push(
    '',
    '## Search (distribution GET /offers, 50 a page): service over HTTP vs the query function called directly',
    '',
    '| offers | query | total | service p50 | service p99 | direct p50 | direct p99 | p50 ratio | errors |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  type SearchQuery = { total?: number; total_relation?: string; service: LoadResult; direct: LoadResult; p50_ratio: number };
  const { deep_page: deep, ...sizes } = (results.search ?? {}) as Record<string, unknown> & {
    deep_page?: { query: string; offset: number; page: LoadResult; after: LoadResult };
  };
  for (const [size, s] of Object.entries(sizes as Record<string, { seed_seconds: number; queries: Record<string, SearchQuery> }>)) {
    for (const [qs, q] of Object.entries(s.queries)) {
      const total = q.total_relation === 'gte' ? `≥ ${q.total}` : String(q.total);
      lines.push(
        `| ${size.replace('offers_', '')} | \`${qs || '(defaults)'}\` | ${total} | ${q.service.p50} | ${q.service.p99} | ${q.direct.p50} | ${q.direct.p99} | ${q.p50_ratio} | ${q.service.errors + q.direct.errors} |`,
      );
    }
    lines.push(`| ${size.replace('offers_', '')} | seeded in ${s.seed_seconds} s (set-based SQL) | | | | | | | |`);
  }
  if (deep)
    lines.push(
      '',
      `Deep page at 1,000,000 offers (\`${deep.query}\`, offset ${deep.offset}), service over HTTP: by \`page\` p50 ${deep.page.p50} ms ` +
        `(p99 ${deep.page.p99}), by \`after\` p50 ${deep.after.p50} ms (p99 ${deep.after.p99}); ${deep.page.count} requests each, ` +
        `errors ${deep.page.errors + deep.after.errors}.`,
    );
  const intake = results.intake as LoadResult | undefined;
  if (intake)
    lines.push('', `## Offer intake`, '', `${intake.perSecond} offers/s created with their review workflows (p99 ${intake.p99} ms).`);
  const cb = results.callbacks as { delivered: number; events: number; perSecond: number } | undefined;
  if (cb)
    lines.push('', '## Callbacks', '', `${cb.delivered}/${cb.events} events delivered, ${cb.perSecond} deliveries/s to a local receiver.`);
  const fan = results.callbacksFanout as CallbacksFanoutResult | undefined;
  if (fan)
    lines.push(
      '',
      '## Callback fan-out',
      '',
      `One offer change reached ${fan.delivered}/${fan.endpoints} publisher endpoints on a local receiver in ${fan.seconds} s.`,
    );
  lines.push('');
  const md = lines.join('\n');
  if (save) fs.writeFileSync(path.join(dir, 'latest.md'), md);
  process.stdout.write(`${md}\n`);
}

main().catch((err) => {
  say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
