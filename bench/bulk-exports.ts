import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import type { Db } from '../store/db';
import type { BenchStack } from './bench-stack';
import { approvedOffer, dealInput } from './offer-fixture';

/*
 * `npm run bench -- bulk` (export section; issue 36 item 6): 1,000,000 vouchers of one offer
 * exported through the API (POST, the workflow writing the CSV part by part, the file downloaded
 * through its signed link), target ≤ 30 s, beside the same rows written by Postgres's own
 * `COPY (…) TO 'file' CSV` in the same run (the floor: no service, no network). The peak memory
 * (RSS) of the API and of the worker is sampled throughout, target < 300 MB each. Seeded with
 * set-based SQL (generate_series), not through the API.
 */

const VOUCHERS = Number(process.env.BENCH_EXPORT_VOUCHERS) || 1_000_000;
const ORDERS = 10_000;

type Say = (m: string) => void;

export interface BulkExportBenchResult {
  vouchers: number;
  seed_s: number;
  /** POST to completed, then the file downloaded through download_url. */
  export_s: number;
  download_s: number;
  total_s: number;
  /** Postgres writing the same rows and columns with COPY … TO a file. */
  copy_s: number;
  /** total_s / copy_s. */
  ratio: number;
  rows: number;
  file_mb: number;
  /**
   * Peak RSS in MB during the export: the API's process, and the worker's (the same process in the
   * one-process layout, which also holds the bench itself); `before`, the same just before it began.
   */
  peak_rss_mb: { api: number; worker: number; before_api: number; before_worker: number; layout: string };
}

const seconds = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** 1,000,000 vouchers of one offer sold by `dist` over 10,000 orders; one in ten redeemed. */
async function seed(db: Db, sub: string, dist: string, say: Say): Promise<string> {
  const offerId = await approvedOffer(db, sub, dealInput({ title: 'Export bench' }));
  await sql`insert into orders (id, client_id, order_number, order_key, customer_name, status, purchased_at)
    select 'ord_exb' || g, ${dist}, 'exb-' || g, 'bench:exb-' || g, 'Bench Customer', 'active', now() - interval '1 day'
    from generate_series(1, ${ORDERS}) g`.execute(db);
  say(`bulk: seeding ${VOUCHERS.toLocaleString('en')} vouchers…`);
  await sql`insert into vouchers (id, offer_id, order_id, client_id, counts_stock, redemption_code, barcode, customer_name,
      status, expiration_date, acquired_at, redeemed_at, updated_at)
    select 'vch_exb' || lpad(g::text, 8, '0'), ${offerId}, 'ord_exb' || (1 + g % ${ORDERS}), ${dist}, false, 'EXB-' || g, 'EXB' || g,
      'Bench Customer', case when g % 10 = 1 then 'redeemed' else 'acquired' end, '2099-12-31',
      now() - interval '1 day', case when g % 10 = 1 then now() - interval '1 hour' end, now()
    from generate_series(1, ${VOUCHERS}) g`.execute(db);
  await sql`insert into voucher_redemptions (id, voucher_id, redeemed_at)
    select 'rdm_' || id, id, redeemed_at from vouchers where offer_id = ${offerId} and status = 'redeemed'`.execute(db);
  await sql`VACUUM ANALYZE vouchers, voucher_redemptions`.execute(db);
  return offerId;
}

/** Peak RSS (MB) of this process and, when it has its own, the worker's, sampled every 100 ms until stopped. */
function sampleMemory(workerPid?: number) {
  const peak = { api: 0, worker: 0 };
  const rssOf = (pid: number) => {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  };
  const take = () => {
    peak.api = Math.max(peak.api, process.memoryUsage().rss / 1024 / 1024);
    peak.worker = Math.max(peak.worker, workerPid ? rssOf(workerPid) : peak.api);
  };
  take();
  const before = { before_api: round(peak.api, 0), before_worker: round(peak.worker, 0) };
  const timer = setInterval(take, 100);
  return () => {
    clearInterval(timer);
    take();
    return { api: round(peak.api, 0), worker: round(peak.worker, 0), ...before };
  };
}

async function getJson(b: BenchStack, url: string, key: string) {
  const res = await fetch(`${b.base}${url}`, { headers: { 'x-service-api-key': key } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as Record<string, any>;
}

/** The service's export: POST, poll until completed, download. */
async function serviceExport(b: BenchStack, offerId: string, file: string) {
  const t0 = process.hrtime.bigint();
  const started = await b.post(`/submission/beta/offers/${offerId}/voucher_exports`, b.sub.key, undefined);
  if (started.status !== 202) throw new Error(`export: ${started.status} ${await started.text()}`);
  const { id } = ((await started.json()) as { voucher_export: { id: string } }).voucher_export;
  let e: Record<string, any>;
  for (;;) {
    e = (await getJson(b, `/submission/beta/voucher_exports/${id}`, b.sub.key)).voucher_export;
    if (e.status === 'completed' || e.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (e.status !== 'completed') throw new Error(`export ${id} ${e.status}: ${e.error}`);
  const exportS = seconds(t0);
  const t1 = process.hrtime.bigint();
  const res = await fetch(e.download_url as string);
  await pipeline(Readable.fromWeb(res.body as never), fs.createWriteStream(file));
  return { export_s: round(exportS), download_s: round(seconds(t1)), rows: e.rows as number };
}

/** The floor: Postgres writing the same rows and columns to a file itself. */
async function copyBaseline(db: Db, offerId: string, file: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  await sql`copy (
    select v.id, v.redemption_code, v.barcode, v.status, v.customer_name, v.order_id,
      to_char(v.acquired_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      to_char(v.redeemed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      to_char(v.cancelled_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      v.expiration_date, coalesce(r.n, 0), r.amount, v.balance_amount, coalesce(v.value_currency, r.currency)
    from vouchers v
    left join lateral (select count(*)::int as n, sum(amount)::bigint as amount, min(currency_code) as currency
      from voucher_redemptions where voucher_id = v.id and rolled_back_at is null) r on true
    where v.offer_id = ${sql.lit(offerId)} order by v.id
  ) to ${sql.lit(file)} with (format csv, header)`.execute(db);
  return round(seconds(t0));
}

/** Seeds, exports through the service, then runs the COPY baseline; answers the figures. */
export async function benchBulkExports(b: BenchStack, say: Say): Promise<BulkExportBenchResult> {
  const db = b.services.db;
  const t0 = process.hrtime.bigint();
  const offerId = await seed(db, b.sub.clientId, b.dist.clientId, say);
  const seedS = round(seconds(t0));
  say(`bulk: seeded in ${seedS} s`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-export-'));
  // Postgres writes the baseline's file itself, maybe as another OS user.
  fs.chmodSync(dir, 0o777);
  try {
    say('bulk: exporting through the service…');
    const stop = sampleMemory(b.workerPid);
    const service = await serviceExport(b, offerId, path.join(dir, 'service.csv'));
    const peak = stop();
    say(`bulk: service ${JSON.stringify({ ...service, peak })}`);
    say('bulk: the same rows through COPY…');
    const copyS = await copyBaseline(db, offerId, path.join(dir, 'copy.csv'));
    say(`bulk: COPY ${copyS} s`);
    const total = round(service.export_s + service.download_s);
    return {
      vouchers: VOUCHERS,
      seed_s: seedS,
      ...service,
      total_s: total,
      copy_s: copyS,
      ratio: round(total / copyS, 1),
      file_mb: round(fs.statSync(path.join(dir, 'service.csv')).size / 1024 / 1024, 1),
      peak_rss_mb: { ...peak, layout: b.layout },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
