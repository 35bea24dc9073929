import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBenchStack, say } from './bench-stack';
import { runLoad } from './load';
import { approvedOffer, dealInput } from './offer-fixture';
import { placer } from './orders';

/*
 * `node --import tsx bench/order-spans.ts [orders]`: where one order's time goes at concurrency 1
 * (issue 44). The orders section's stack in the production layout (the worker in a process of its
 * own), with OpenTelemetry on (platform/tracing.ts) to an OTLP/HTTP receiver in this process;
 * after a warm-up, `orders` orders (200) one at a time, then the p50 and p90 of each span of an
 * order's path: the API's request, its Update-with-Start, the workflow's handling of the Update,
 * and the placing batch (the local activity: load, plan, write, one transaction). Tracing adds its
 * own cost (the SDK's interceptors in the workflow bundle): read the parts against each other, and
 * the totals against `npm run bench -- orders`, not as those figures. Printed, not recorded.
 */

interface Span {
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

async function receiver(): Promise<{ url: string; spans: Span[]; close(): void }> {
  const spans: Span[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
      for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, close: () => server.close() };
}

const PARTS: Array<[string, RegExp]> = [
  ['API request (POST /orders)', /^POST \/distribution\/beta\/orders$/],
  ['Update-with-Start, as the API waits for it', /^UpdateWithStartWorkflow:placeOrders/],
  ["the workflow's handling of the Update", /^HandleUpdate:placeOrders/],
  ['placing batch (local activity: load, plan, write)', /^RunActivity:placeOrderBatch/],
];

const durationMs = (s: Span) => Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)];

async function main() {
  const orders = Number(process.argv[2] ?? 200);
  if (!Number.isInteger(orders) || orders < 1)
    throw new Error(`usage: bench/order-spans.ts [N orders, 200 unless told]; got ${process.argv[2]}`);
  const traces = await receiver();
  Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: traces.url, BENCH_WORKER: 'separate' });
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const bench = await startBenchStack(stops);
    const errors: Record<string, number> = {};
    const place = placer(bench, errors);
    const offerId = await approvedOffer(bench.services.db, bench.sub.clientId, dealInput({ initial_quantity: 1_000_000 }));
    say('order spans: warming up (300 orders)…');
    for (let i = 0; !(await place(offerId, 'warm')(i)); i++) if (i > 300) throw new Error('no order placed after warm-up');
    await runLoad(300, 1, place(offerId, 'warm'));
    say(`order spans: ${orders} orders at concurrency 1…`);
    const load = await runLoad(orders, 1, place(offerId, 'spans'));
    // The API's spans leave on flush; the worker's on its exporter's own schedule (every 5 s).
    await bench.services.tracing?.flush();
    const placings = () => traces.spans.filter((s) => /^RunActivity:placeOrderBatch/.test(s.name)).length;
    const deadline = Date.now() + 30_000;
    // Every placing: the first warm order, 300 more, then the measured ones.
    while (placings() < 1 + 300 + orders && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    // The last `orders` of each part are the measured ones (the warm-up's came first, in order).
    const lines = [
      '| part | n | p50 ms | p90 ms |',
      '|---|---|---|---|',
      `| HTTP round trip (the load's clock; p95 for p90) | ${orders} | ${load.p50} | ${load.p95} |`,
    ];
    for (const [label, re] of PARTS) {
      const all = traces.spans
        .filter((s) => re.test(s.name))
        .sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
      const last = all.slice(-orders).map(durationMs);
      lines.push(`| ${label} | ${last.length} | ${percentile(last, 0.5).toFixed(1)} | ${percentile(last, 0.9).toFixed(1)} |`);
    }
    process.stdout.write(`${lines.join('\n')}\n${Object.keys(errors).length ? `errors: ${JSON.stringify(errors)}\n` : ''}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    traces.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
