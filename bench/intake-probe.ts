import { scrape } from '../platform/metrics';
import { startBenchStack } from './bench-stack';
import { runLoad } from './load';
import { placer, warmUp } from './orders';
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
  // The worker in this process (startBenchStack's one-process layout), so its metrics are read here.
  delete process.env.BENCH_WORKER;
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const bench = await startBenchStack(stops);
    const errors: Record<string, number> = {};
    const placeOne = placer(bench, errors);
    await warmUp(bench, placeOne);
    for (const c of LEVELS) {
      const n = ORDERS[c] ?? 600;
      const offer = await approvedOffer(bench.services.db, bench.sub.clientId, dealInput());
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
