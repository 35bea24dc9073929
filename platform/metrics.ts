import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics: one registry shared by the API and the activities running in
 * this process, plus the Temporal worker's own metrics (served by the Core SDK on a loopback port
 * and appended to /metrics).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** A counter or gauge in this process's registry, with its label names. */
export const counter = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
  new Counter({ name, help, labelNames, registers: [registry] });
export const gauge = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
  new Gauge({ name, help, labelNames, registers: [registry] });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

// Business counters, each incremented where its event is committed (the placing transaction, the
// redeeming update), so a request that fails before that point counts nothing.
const ordersPlaced = counter('orders_placed_total', 'orders fulfilled');
const ordersRefused = counter('orders_refused_total', 'orders refused, by reason (the refusal code the client receives)', ['reason']);
const orderAnswers = counter(
  'order_answers_total',
  // One `via` since issue 32 (the intake's placeOrders Update): the label stays for the dashboards and queries that use it.
  "POST /orders answers the API had from placing, by how it learnt them: intake (the intake workflow's placeOrders Update)",
  ['via'],
);
const vouchersIssued = counter('vouchers_issued_total', 'vouchers issued by orders');
const vouchersRedeemed = counter('vouchers_redeemed_total', 'vouchers redeemed');

// Gauges read from Postgres at scrape time (queue state belongs to the database, not to whichever
// process happened to change it): set by the /metrics route just before it serializes the registry.
const reviewQueueLength = gauge('review_queue_length', 'offers waiting for review');
const reviewQueueOldestAge = gauge(
  'review_queue_oldest_age_seconds',
  'how long the oldest offer waiting for review has waited (0 when the queue is empty)',
);
const callbackLag = gauge(
  'callback_lag_seconds',
  "age of each enabled callback endpoint's oldest undelivered callback (0 when it is caught up)",
  ['endpoint'],
);
const callbackDeliveries = counter(
  'callback_delivery_attempts_total',
  'callback delivery attempts by outcome (delivered, failed attempt, gave up)',
  ['outcome'],
);

/** The business counters, as services and activities see them (passed in as a dependency, never imported). */
export const businessMetrics = {
  voucherRedeemed: () => vouchersRedeemed.inc(),
  /** An order placed by this call (a retry that found it placed counts nothing). */
  orderPlaced: (vouchers: number) => {
    ordersPlaced.inc();
    vouchersIssued.inc(vouchers);
  },
  orderRefused: (reason: string) => ordersRefused.inc({ reason }),
  callbackAttempt: (outcome: 'delivered' | 'failed_attempt' | 'gave_up') => callbackDeliveries.inc({ outcome }),
  orderAnswered: () => orderAnswers.inc({ via: 'intake' }),
};
export type BusinessMetrics = typeof businessMetrics;

/** What one scrape reads from the database (services/metrics.ts). */
export interface QueueSnapshot {
  reviewQueue: { length: number; oldestAgeSeconds: number };
  callbackLag: { endpointId: string; seconds: number }[];
}

/** Sets the scrape-time gauges; endpoints no longer enabled drop out (reset) instead of keeping a stale lag. */
export function observeQueues(s: QueueSnapshot): void {
  reviewQueueLength.set(s.reviewQueue.length);
  reviewQueueOldestAge.set(s.reviewQueue.oldestAgeSeconds);
  callbackLag.reset();
  for (const e of s.callbackLag) callbackLag.set({ endpoint: e.endpointId }, e.seconds);
}
let workerMetricsUrl: string | undefined;

/** Where the Temporal Core SDK serves this process's worker metrics (set when the worker runtime starts). */
export function setWorkerMetricsUrl(url: string): void {
  workerMetricsUrl = url;
}

/** Everything for one scrape: our metrics, then the worker's (if a worker runs in this process). */
export async function scrape(): Promise<string> {
  const own = await registry.metrics();
  if (!workerMetricsUrl) return own;
  const worker = await fetch(workerMetricsUrl, { signal: AbortSignal.timeout(2000) })
    .then((r) => (r.ok ? r.text() : ''))
    .catch(() => '');
  return `${own}\n${worker}`;
}
