import fs from 'node:fs';
import path from 'node:path';
import type { BenchResults } from './bench-results';
import type { LoadResult } from './load';
import type { OrdersResult } from './orders';
import { rateLimitLines } from './ratelimit';
import type { SearchResult } from './search';
import type { KeywordSearchResult } from './search-keywords';
import { SUMMARY_TARGETS } from './summary';

/*
 * The results as Markdown (bench/results/latest.md): the summary, then a part per section that ran.
 * Printed always, and written with latest.json, which holds each section's latest run
 * (bench/results-merge.ts).
 */

export function writeResults(results: BenchResults, save: boolean): void {
  const dir = path.join(__dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  if (save) fs.writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  printResults(results, save ? path.join(dir, 'latest.md') : undefined);
}

/** The results as Markdown, printed, and written to `mdPath` when given. */
function printResults(results: BenchResults, mdPath: string | undefined): void {
  const md = [
    ...summaryLines(results),
    ...(results.orders ? ordersLines(results.orders) : []),
    ...(results.orders_cluster
      ? ['# The same on a real Temporal cluster (mTLS, four server processes)', '', ...ordersLines(results.orders_cluster)]
      : []),
    ...(results.search ? searchLines(results.search) : []),
    ...(results.keywordSearch ? keywordLines(results.keywordSearch) : []),
    ...otherLines(results),
    ...(results.ratelimit ? rateLimitLines(results.ratelimit) : []),
    '',
  ].join('\n');
  if (mdPath) fs.writeFileSync(mdPath, md);
  process.stdout.write(`${md}\n`);
}

const row = (name: string, r: LoadResult) =>
  `| ${name} | ${r.count} | ${r.concurrency} | ${r.perSecond} | ${r.p50} | ${r.p95} | ${r.p99} | ${r.errors} |`;

function summaryLines(results: BenchResults): string[] {
  return [
    '# Benchmark results',
    '',
    `Run ${results.at} on ${results.machine.cpus} cores, Node ${results.machine.node}. Reproduce with \`npm run bench\`.`,
    '',
    '## Summary (targets: bench/README.md)',
    '',
    '| key | value | target |',
    '|---|---|---|',
    ...Object.entries(results.summary ?? {}).map(([k, v]) => `| \`${k}\` | ${v ?? 'not run'} | ${SUMMARY_TARGETS[k]} |`),
    '',
  ];
}

/** Temporal's CPU: the dev server's process (`temporal`), or a cluster's four (`temporal-history`, …) summed. */
const temporalCpu = (ms: Record<string, number>) =>
  Math.round(Object.entries(ms).reduce((sum, [k, v]) => (/^temporal(-|$)/.test(k) ? sum + v : sum), 0) * 10) / 10;

const ordersLines = (o: OrdersResult) => [...orderCpuLines(o), ...floorLines(o), ...orderLines(o)];

function orderCpuLines(orders: OrdersResult): string[] {
  const cpu = orders.cpu_c32;
  if (!cpu) return [];
  return [
    `## CPU per order at concurrency 32, by process (from /proc; layout: ${orders.layout}; Temporal: ${orders.temporal})`,
    '',
    '| process | CPU ms per order |',
    '|---|---|',
    ...Object.entries(cpu.ms_per_order)
      .sort(([, a], [, b]) => b - a)
      .map(([k, v]) => `| ${k} | ${v} |`),
    `| **all** | **${cpu.total_ms_per_order}** |`,
    '',
    '`api_and_load` is the API process, which also runs the load generator (its HTTP client).',
    '',
  ];
}

function floorLines(orders: OrdersResult): string[] {
  const floors = [
    ['ping (answered at once)', orders.floor_ping],
    ['pingLocal (a local activity that does nothing)', orders.floor_ping_local],
  ] as const;
  const lines: string[] = [];
  for (const [name, f] of floors) {
    if (!f) continue;
    for (const [r, c] of [
      [f.c1, f.cpu_c1],
      [f.c32, f.cpu_c32],
    ] as const)
      lines.push(
        `| ${name} | ${r.concurrency} | ${r.perSecond} | ${r.p50} | ${r.p99} | ${temporalCpu(c.ms_per_order)} | ${c.ms_per_order.worker ?? 0} | ${c.ms_per_order.api_and_load ?? 0} |`,
      );
  }
  if (!lines.length) return [];
  return [
    '## The floor: one Update-with-Start to a workflow that does nothing (no HTTP, API or database)',
    '',
    '| update | concurrency | per second | p50 ms | p99 ms | Temporal CPU ms per update | worker CPU ms per update | client CPU ms per update |',
    '|---|---|---|---|---|---|---|---|',
    ...lines,
    '',
  ];
}

function orderLines(orders: OrdersResult): string[] {
  const levels = (['c1', 'c8', 'c32'] as const).flatMap((l) => (orders[l] ? [[l, orders[l]] as const] : []));
  const errors = Object.entries(orders.errors);
  return [
    '## Orders (POST /orders, 1 item, 1 voucher) vs the same transaction with bare pg',
    '',
    `The order intake on ${orders.shards} shards, ${orders.orders_per_run} orders a run; layout: ${orders.layout}.`,
    '',
    '| run | requests | concurrency | per second | p50 ms | p95 ms | p99 ms | errors |',
    '|---|---|---|---|---|---|---|---|',
    ...levels.flatMap(([l, o]) => [
      row(`service ${l} (${o.orders_per_update} orders an Update)`, o.service),
      row(`baseline ${l}`, o.baseline),
    ]),
    ...(errors.length ? ['', `Errors by status and code: ${errors.map(([k, v]) => `${k}: ${v}`).join(', ')}.`] : []),
    '',
    ...levels.map(([l, o]) => `- ${l}: service throughput = **${Math.round(o.ratio * 100)}%** of the baseline`),
  ];
}

function searchLines(search: SearchResult): string[] {
  const { deep_page: deep, ...sizes } = search;
  const lines = [
    '',
    '## Search (distribution GET /offers, 50 a page): service over HTTP vs the query function called directly',
    '',
    '| offers | query | total | service p50 | service p99 | direct p50 | direct p99 | p50 ratio | errors |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const [size, s] of Object.entries(sizes)) {
    const offers = size.replace('offers_', '');
    for (const [qs, q] of Object.entries(s.queries)) {
      const total = q.total_relation === 'gte' ? `≥ ${q.total}` : String(q.total);
      lines.push(
        `| ${offers} | \`${qs || '(defaults)'}\` | ${total} | ${q.service.p50} | ${q.service.p99} | ${q.direct.p50} | ${q.direct.p99} | ${q.p50_ratio} | ${q.service.errors + q.direct.errors} |`,
      );
    }
    lines.push(`| ${offers} | seeded in ${s.seed_seconds} s (set-based SQL) | | | | | | | |`);
  }
  if (deep)
    lines.push(
      '',
      `Deep page at 1,000,000 offers (\`${deep.query}\`, offset ${deep.offset}), service over HTTP: by \`page\` p50 ${deep.page.p50} ms ` +
        `(p99 ${deep.page.p99}), by \`after\` p50 ${deep.after.p50} ms (p99 ${deep.after.p99}); ${deep.page.count} requests each, ` +
        `errors ${deep.page.errors + deep.after.errors}.`,
    );
  return lines;
}

function keywordLines(k: KeywordSearchResult): string[] {
  return [
    '',
    `## Keyword search (q) at ${k.offers} offers, 50 a page, over HTTP at concurrency 2 (load ${k.load.start.join(' ')} → ${k.load.end.join(' ')})`,
    '',
    '| class | terms | p50 | p99 | errors | ILIKE scan p50 | ILIKE ÷ keyword |',
    '|---|---|---|---|---|---|---|',
    ...Object.entries(k.classes).map(
      ([name, c]) => `| ${name} | ${c.terms} | ${c.p50} | ${c.p99} | ${c.errors} | ${c.ilike_p50} | ${c.ilike_ratio} |`,
    ),
    `| all | | ${k.all.p50} | ${k.all.p99} | | ${k.all.ilike_p50} | ${k.all.ilike_ratio} |`,
    '',
    `NDCG@10 over ${k.ndcg10.queries} judged queries: mean ${k.ndcg10.mean}, lowest ${k.ndcg10.min} (\`${k.ndcg10.worst}\`). Seeded in ${k.seed_seconds} s.`,
  ];
}

function otherLines({ intake, callbacks: cb, callbacksFanout: fan }: BenchResults): string[] {
  return [
    ...(intake
      ? ['', `## Offer intake`, '', `${intake.perSecond} offers/s created with their review workflows (p99 ${intake.p99} ms).`]
      : []),
    ...(cb
      ? ['', '## Callbacks', '', `${cb.delivered}/${cb.events} events delivered, ${cb.perSecond} deliveries/s to a local receiver.`]
      : []),
    ...(fan
      ? [
          '',
          '## Callback fan-out',
          '',
          `One offer change reached ${fan.delivered}/${fan.endpoints} publisher endpoints on a local receiver in ${fan.seconds} s.`,
        ]
      : []),
  ];
}
