import crypto from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createOrderActivities } from '../activities/orders';
import { orderKey } from '../domain/orders';
import type { Database } from '../store/database';
import { derivedId } from '../store/ids';
import { bareOrder } from './bare-order';
import { startBenchStack, say, type BenchStack } from './bench-stack';
import { runLoad, type LoadResult } from './load';
import { approvedOffer, dealInput } from './offer-fixture';
import { placer, warmUp } from './orders';
import { withCpu } from './proc-cpu';

/*
 * `node --import tsx bench/order-parts.ts`: what an order's parts cost beside Temporal (issue 44), on
 * the orders section's stack in the production layout, after its warm-up; printed, not recorded.
 * - HTTP and the API at concurrency 1: a request no route takes, and a POST /orders its body's
 *   validation refuses (every hook of the order's path: rate limit, key, negotiation, parsing).
 * - The placing activity called directly at concurrency 1, one order a batch, beside the bare-pg
 *   transaction (bench/bare-order.ts), in rounds taking turns; then each of its statements' p50, as
 *   Kysely times them (a statement's time includes waiting for the one before it on the connection).
 * - Orders spread over 64 offers at concurrency 8 and 32 (order i buys offer i mod 64), with the CPU by
 *   process: the orders section buys one offer per level, which the intake's shards (by offer) favour.
 */

const ROUNDS = 3;
const SPREAD_OFFERS = 64;

async function main() {
  process.env.BENCH_WORKER = 'separate';
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const bench = await startBenchStack(stops);
    const errors: Record<string, number> = {};
    await warmUp(bench, placer(bench, errors));
    await httpParts(bench);
    await placingParts(bench, stops);
    await spreadOrders(bench, errors);
    if (Object.keys(errors).length) say(`errors: ${JSON.stringify(errors)}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

const line = (label: string, r: LoadResult) => say(`${label}: p50 ${r.p50} ms, p95 ${r.p95}, p99 ${r.p99}, ${r.errors} unexpected`);

async function httpParts(bench: BenchStack) {
  const answered = (status: number) => async (res: Response) => {
    await res.arrayBuffer();
    return res.status === status;
  };
  const unrouted = () => fetch(`${bench.base}/no-such-page`).then(answered(404));
  const refused = () => bench.post('/distribution/beta/orders', bench.dist.key, { order: { order_number: 'parts' } }).then(answered(422));
  for (let r = 0; r < ROUNDS; r++) {
    line(`http round ${r}: unrouted request`, await runLoad(300, 1, unrouted));
    line(`http round ${r}: POST /orders refused at validation`, await runLoad(300, 1, refused));
  }
}

async function placingParts(bench: BenchStack, stops: Array<() => Promise<unknown>>) {
  const times = new Map<string, number[]>();
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: bench.stack.endpoints.databaseUrl, max: 2 }) }),
    log: (e) => {
      const statement = e.query.sql.replace(/\s+/g, ' ').trim().slice(0, 50);
      times.set(statement, [...(times.get(statement) ?? []), e.queryDurationMillis]);
    },
  });
  stops.push(() => db.destroy());
  const { placeOrderBatch } = createOrderActivities({ db, config: bench.config, metrics: bench.services.metrics });
  const clientId = bench.dist.clientId;
  const place = (offerId: string) => async () => {
    const orderNumber = `parts-${crypto.randomUUID()}`;
    const key = orderKey(clientId, orderNumber);
    const order = {
      orderKey: key,
      orderId: derivedId('ord', key),
      clientId,
      orderNumber,
      accountId: null,
      applicationId: null,
      customerName: 'Bench Customer',
      shippingAddress: null,
      items: [{ offer_id: offerId, quantity: 1 }],
      requestId: `${crypto.randomUUID()}/0`,
    };
    const [answer] = await placeOrderBatch({ orders: [order] });
    return answer.ok;
  };
  const offer = () => approvedOffer(bench.services.db, bench.sub.clientId, dealInput({ initial_quantity: 1_000_000 }));
  await runLoad(300, 1, place(await offer()));
  times.clear();
  for (let r = 0; r < ROUNDS; r++) {
    line(`placing round ${r}: the activity, one order`, await runLoad(200, 1, place(await offer())));
    const bare = await offer();
    line(
      `placing round ${r}: the bare transaction`,
      await runLoad(200, 1, (i) => bareOrder(bench.services.db, clientId, bare, `parts-${r}-${i}`)),
    );
  }
  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [statement, ms] of times) say(`placing statement p50 ${p50(ms).toFixed(2)} ms (${ms.length}×): ${statement}`);
}

async function spreadOrders(bench: BenchStack, errors: Record<string, number>) {
  const place = placer(bench, errors);
  const offers: string[] = [];
  for (let i = 0; i < SPREAD_OFFERS; i++) offers.push(await approvedOffer(bench.services.db, bench.sub.clientId, dealInput()));
  for (const [c, n] of [
    [8, 600],
    [32, 1200],
  ] as const) {
    const { result, cpu } = await withCpu(() => runLoad(n, c, (i) => place(offers[i % SPREAD_OFFERS], `spread-c${c}`)(i)), bench.workerPid);
    line(
      `spread over ${SPREAD_OFFERS} offers, c${c} (${result.perSecond} orders/s; CPU ${cpu.total_ms_per_order} ms an order: ${JSON.stringify(cpu.ms_per_order)})`,
      result,
    );
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
