import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../store/db';
import { say, type BenchStack } from './bench-stack';
import { bareOrder } from './bare-order';
import { benchFloor, startFloorWorker, type FloorRun } from './floor';
import { round3, runLoad, type LoadResult } from './load';
import { approvedOffer, dealInput } from './offer-fixture';
import { withCpu, type CpuPerOrder } from './proc-cpu';

/*
 * Orders: POST /orders (1 item, 1 voucher) end to end through HTTP and the order intake (the
 * service's default settings: orders coalesced per shard into one Update), against the same
 * transaction (take stock, insert order, item and voucher) run straight from Node with pg; then
 * the floor, what Temporal alone costs (bench/floor.ts).
 */

/**
 * Orders placed before anything is measured: enough that the worker's and the API's code paths are
 * compiled by then, as other designs' runs used to do before issue 32 (bench/README.md, "One order
 * path", says what too short a warm-up cost).
 */
const WARM_ORDERS = 1_000;

/** Orders at each concurrency level; each level's orders all buy one offer. */
const ORDERS_PER_LEVEL = { 1: 150, 8: 600, 32: 1200 } as const;

export interface OrdersLevel {
  service: LoadResult;
  baseline: LoadResult;
  /** Service ÷ baseline orders per second. */
  ratio: number;
  /** Orders an Update carried on average (read from the orders' request ids, which name their Update). */
  orders_per_update: number;
}

export interface OrdersResult {
  layout: BenchStack['layout'];
  temporal: BenchStack['temporal'];
  shards: number;
  orders_per_run: number;
  /** The measured runs' failed orders, by status and error code. */
  errors: Record<string, number>;
  c1?: OrdersLevel;
  c8?: OrdersLevel;
  c32?: OrdersLevel;
  /** The CPU by process around the service's concurrency-32 run. */
  cpu_c32?: CpuPerOrder;
  floor_ping?: FloorRun;
  floor_ping_local?: FloorRun;
}

export async function benchOrders(bench: BenchStack, stops: Array<() => Promise<unknown>>): Promise<OrdersResult> {
  const floorWorker = startFloorWorker(bench.stack.endpoints.temporalAddress, stops, bench.env);
  const errors: Record<string, number> = {};
  const placeOne = placer(bench, errors);
  await warmUp(bench, placeOne);
  await floorWorker.ready;
  // Only the measured runs' errors are reported (the warm-up waits through the worker's start).
  for (const k of Object.keys(errors)) delete errors[k];
  const result: OrdersResult = {
    layout: bench.layout,
    temporal: bench.temporal,
    shards: bench.config.ORDER_INTAKE_SHARDS,
    orders_per_run: bench.config.ORDER_INTAKE_ORDERS_PER_RUN,
    errors,
  };
  for (const c of [1, 8, 32] as const) {
    const { level, cpu } = await benchLevel(bench, placeOne, c);
    result[`c${c}`] = level;
    if (c === 32) result.cpu_c32 = cpu;
  }
  return { ...result, ...(await benchFloor(bench.services.temporal, floorWorker, bench.roles)) };
}

export type PlaceOne = (offerId: string, tag: string) => (i: number) => Promise<boolean>;

/** Order `i` of one offer through the API, tagged in its order number; a failure is counted in `errors`. */
export function placer(bench: BenchStack, errors: Record<string, number>): PlaceOne {
  return (offerId, tag) => async (i) => {
    const res = await bench.post('/distribution/beta/orders', bench.dist.key, {
      order: {
        order_number: `bench-${tag}-${i}-${crypto.randomUUID()}`,
        customer_name: 'Bench Customer',
        items: [{ offer_id: offerId, quantity: 1 }],
      },
    });
    if (res.status === 200) {
      await res.arrayBuffer();
      return true;
    }
    // What an error was, counted by answer: an error count alone explains nothing.
    const body = (await res.json().catch(() => undefined)) as { errors?: Array<{ code?: string }> } | undefined;
    const what = `${res.status} ${body?.errors?.[0]?.code ?? ''}`.trim();
    errors[what] = (errors[what] ?? 0) + 1;
    return false;
  };
}

/**
 * The worker bundles its workflows at start, and the first orders of a fresh process pay for
 * compiling and connecting; none of that belongs in the measure.
 */
export async function warmUp(bench: BenchStack, placeOne: PlaceOne): Promise<void> {
  const warm = await approvedOffer(bench.services.db, bench.sub.clientId, dealInput());
  say(`orders: warming up (waiting for the worker, then ${WARM_ORDERS} orders)…`);
  for (let i = 0; !(await placeOne(warm, 'warm')(i)); i++) if (i > 300) throw new Error('no order placed after warm-up');
  await runLoad(WARM_ORDERS, 8, placeOne(warm, 'warm'));
  await runLoad(200, 8, (i) => bareOrder(bench.services.db, bench.dist.clientId, warm, `warm-base-${i}`));
}

/** One concurrency level: the service (with the CPU by process), then the bare-pg baseline, each on an offer of its own. */
async function benchLevel(bench: BenchStack, placeOne: PlaceOne, c: keyof typeof ORDERS_PER_LEVEL) {
  const { db } = bench.services;
  const n = ORDERS_PER_LEVEL[c];
  const offerId = await approvedOffer(db, bench.sub.clientId, dealInput());
  say(`orders: ${n} at concurrency ${c} through the service…`);
  const { result: service, cpu } = await withCpu(() => runLoad(n, c, placeOne(offerId, `c${c}`)), bench.workerPid, bench.roles);
  const baselineOffer = await approvedOffer(db, bench.sub.clientId, dealInput());
  say(`orders: ${n} at concurrency ${c} as bare pg transactions…`);
  const baseline = await runLoad(n, c, (i) => bareOrder(db, bench.dist.clientId, baselineOffer, `base-${c}-${i}`));
  const level: OrdersLevel = {
    service,
    baseline,
    ratio: round3(service.perSecond / baseline.perSecond),
    orders_per_update: await ordersPerUpdate(db, `bench-c${c}-%`),
  };
  return { level, cpu };
}

/** How many orders an Update carried on average, among the orders whose number is like `numbers`. */
async function ordersPerUpdate(db: Db, numbers: string): Promise<number> {
  const carried = await sql<{ orders: string; updates: string }>`
    select count(*) as orders, count(distinct split_part(request_id, '/', 1)) as updates
    from orders where order_number like ${numbers}`.execute(db);
  const { orders, updates } = carried.rows[0];
  return round3(Number(orders) / Math.max(1, Number(updates)));
}
