import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

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

export const ordersPlaced = new Counter({ name: 'orders_placed_total', help: 'orders fulfilled', registers: [registry] });
export const vouchersIssued = new Counter({ name: 'vouchers_issued_total', help: 'vouchers issued by orders', registers: [registry] });
export const callbackDeliveries = new Counter({
  name: 'callback_delivery_attempts_total',
  help: 'callback delivery attempts by outcome (delivered, failed attempt, gave up)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

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
