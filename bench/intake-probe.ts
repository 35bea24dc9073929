import crypto from 'node:crypto';
import { buildApp } from '../api/app';
import { createApiKey } from '../services/api-clients';
import { freePort } from '../platform/free-port';
import { createLogger } from '../platform/logger';
import { scrape } from '../platform/metrics';
import { connectServices } from '../main';
import { startStackProcess, stopStackProcess } from '../infra/local/stack-process';
import { startWorker } from '../worker/main';
import { benchConfig } from './bench-config';
import { runLoad } from './load';
import { cpuSnapshot, cpuSpent } from './proc-cpu';
import { approvedOffer, dealInput } from './offer-fixture';

/*
 * `node --import tsx bench/intake-probe.ts [levels…]` (levels repeat: `8 8 32`): where an order's
 * time goes in the order intake (default settings), with the worker in this process so its Core
 * SDK metrics can be read (workflow tasks, sticky cache, local activities): per level, the
 * latencies, the CPU by process and the worker metrics' deltas per order. A diagnostic beside
 * `npm run bench -- orders`; not recorded.
 */

const say = (m: string) => process.stderr.write(`[probe] ${m}\n`);
const LEVELS = (process.argv.slice(2).length ? process.argv.slice(2) : ['1', '8', '32']).map(Number);
const ORDERS: Record<number, number> = { 1: 150, 8: 600, 32: 1200 };

/** Counters and histogram sums/counts of the worker's Prometheus text, by metric name (labels summed). */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('temporal_')) continue;
    const m = /^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$/.exec(line);
    if (!m || m[1].endsWith('_bucket')) continue;
    out.set(m[1], (out.get(m[1]) ?? 0) + Number(m[3]));
  }
  return out;
}

async function main() {
  const stack = await startStackProcess({ prefix: 'offer-marketplace-probe-' });
  const stops: Array<() => Promise<unknown>> = [() => stopStackProcess(stack.pid, stack.dataDir)];
  try {
    const config = benchConfig(stack);
    const services = await connectServices(config, stack.endpoints, createLogger('silent'));
    stops.push(() => services.close());
    const worker = await startWorker({ deps: services, endpoints: stack.endpoints, taskQueue: config.TEMPORAL_TASK_QUEUE });
    stops.push(() => worker.shutdown());
    const app = await buildApp(services);
    stops.push(() => app.close());
    const port = await freePort();
    await app.listen({ port, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${port}`;
    const sub = await createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
    const dist = await createApiKey(services, { iface: 'distribution', environment: config.SERVICE_ENVIRONMENT });
    const errors: Record<string, number> = {};
    const placeOne = (offerId: string, tag: string) => async (i: number) => {
      const res = await fetch(`${base}/distribution/beta/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': dist.key },
        body: JSON.stringify({
          order: {
            order_number: `p-${tag}-${i}-${crypto.randomUUID()}`,
            customer_name: 'Probe',
            items: [{ offer_id: offerId, quantity: 1 }],
          },
        }),
      });
      const body = await res.text();
      if (res.status !== 200) errors[`${res.status} ${body.slice(0, 400)}`] = (errors[`${res.status} ${body.slice(0, 400)}`] ?? 0) + 1;
      return res.status === 200;
    };
    const warm = await approvedOffer(services.db, sub.clientId, dealInput());
    for (let i = 0; !(await placeOne(warm, 'warm')(i)); i++) if (i > 300) throw new Error('no order placed');
    await runLoad(100, 8, placeOne(warm, 'warm'));
    for (const c of LEVELS) {
      const n = ORDERS[c] ?? 600;
      const offer = await approvedOffer(services.db, sub.clientId, dealInput());
      const m0 = parseMetrics(await scrape());
      const cpu0 = cpuSnapshot(process.pid);
      const r = await runLoad(n, c, placeOne(offer, `c${c}`));
      const cpu1 = cpuSnapshot(process.pid);
      const m1 = parseMetrics(await scrape());
      const byProcess = cpuSpent(cpu0, cpu1, (p) =>
        p.pid === process.pid ? 'api_worker_load' : /^postgres|^postmaster/.test(p.comm) ? 'postgres' : p.comm,
      );
      const per = (x: number) => Math.round((x / n) * 100) / 100;
      const delta = [...m1].map(([k, v]) => [k, per(v - (m0.get(k) ?? 0))] as const).filter(([, v]) => v !== 0);
      say(`c${c}: ${JSON.stringify(r)}`);
      say(`c${c} cpu ms/order: ${JSON.stringify(Object.fromEntries(Object.entries(byProcess).map(([k, v]) => [k, per(v)])))}`);
      say(`c${c} worker metrics per order: ${JSON.stringify(Object.fromEntries(delta))}`);
    }
    say(`errors: ${JSON.stringify(errors)}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

main().catch((err) => {
  say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
