import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics: one registry shared by the API and the activities running in
 * this process, plus the Temporal worker's own metrics (served by the Core SDK on a loopback port
 * and appended to /metrics).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

// Business counters, each incremented where its event is committed (the placing transaction, the
// redeeming update), so a request that fails before that point counts nothing.
export const ordersPlaced = new Counter({ name: 'orders_placed_total', help: 'orders fulfilled', registers: [registry] });
export const ordersRefused = new Counter({
  name: 'orders_refused_total',
  help: 'orders refused, by reason (the refusal code the client receives)',
  labelNames: ['reason'] as const,
  registers: [registry],
});
export const orderAnswers = new Counter({
  name: 'order_answers_total',
  // One `via` since issue 32 (the intake's placeOrders Update): the label stays for the dashboards and queries that use it.
  help: "POST /orders answers the API had from placing, by how it learnt them: intake (the intake workflow's placeOrders Update)",
  labelNames: ['via'] as const,
  registers: [registry],
});
export const vouchersIssued = new Counter({ name: 'vouchers_issued_total', help: 'vouchers issued by orders', registers: [registry] });
export const vouchersRedeemed = new Counter({ name: 'vouchers_redeemed_total', help: 'vouchers redeemed', registers: [registry] });

// Gauges read from Postgres at scrape time (queue state belongs to the database, not to whichever
// process happened to change it): set by the /metrics route just before it serializes the registry.
const reviewQueueLength = new Gauge({ name: 'review_queue_length', help: 'offers waiting for review', registers: [registry] });
const reviewQueueOldestAge = new Gauge({
  name: 'review_queue_oldest_age_seconds',
  help: 'how long the oldest offer waiting for review has waited (0 when the queue is empty)',
  registers: [registry],
});
const callbackLag = new Gauge({
  name: 'callback_lag_seconds',
  help: "age of each enabled callback endpoint's oldest undelivered callback (0 when it is caught up)",
  labelNames: ['endpoint'] as const,
  registers: [registry],
});

const callbackDeliveries = new Counter({
  name: 'callback_delivery_attempts_total',
  help: 'callback delivery attempts by outcome (delivered, failed attempt, gave up)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

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
