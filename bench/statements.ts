import http from 'node:http';
import { sql } from 'kysely';
import { revenueShares } from '../domain/money';
import { EventFeedQuery } from '../schemas/event-feed';
import { readEventFeed } from '../services/event-feed';
import { statementRange } from '../domain/statements';
import { distributionStatementRows, submissionStatementRows } from '../store/statements';
import type { Config } from '../platform/config';
import type { Db } from '../store/db';
import { approvedOffer, dealInput } from './offer-fixture';

/*
 * `npm run bench -- statements`: a statement over a month holding 1,000,000 vouchers (issue 22,
 * target ≤ 2 s), and the change feed read whole over 10,000 events (target ≤ 1 s). Seeded with
 * set-based SQL (generate_series), not through the API. Each statement is timed through HTTP (the
 * service: query, money, JSON) and as the store's query alone, median of RUNS after one warm-up.
 */

const VOUCHERS = 1_000_000;
const OFFERS = 50;
const ORDERS = 10_000;
const FEED_EVENTS = 10_000;
const RUNS = 3;
const FROM = '2026-10-01';
const TO = '2026-10-31';

type Say = (m: string) => void;
type Key = { key: string; clientId: string };

export interface StatementsBenchResult {
  vouchers: number;
  seed_s: number;
  submission: { service_s: number; query_s: number; lines: number };
  distribution: { service_s: number; query_s: number; lines: number };
  /** The scans Postgres plans for a client with few vouchers (EXPLAIN): the statement indexes at work. */
  plans?: Record<string, string[]>;
  feed: { events: number; pages: number; first_read_s: number; second_read_s: number; service_direct_s: number };
}

const seconds = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

async function median(runs: number, work: () => Promise<unknown>): Promise<number> {
  await work(); // warm-up: plans cached, pages in memory, the process's first JSON of that size
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await work();
    times.push(seconds(t0));
  }
  return round3(times.sort((a, b) => a - b)[Math.floor(times.length / 2)]);
}

function getJson(base: string, url: string, key: string): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${url}`, { headers: { 'x-service-api-key': key } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode} ${body.slice(0, 300)}`));
          else resolve(JSON.parse(body));
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/**
 * 1,000,000 vouchers of `sub`'s offers sold by `dist` in October 2026 (10 accounts and none), one
 * in twenty cancelled in October, one in ten redeemed in October (one in a hundred of those rolled
 * back), each with the figures placing stores at sale.
 */
async function seedVouchers(db: Db, sub: Key, dist: Key, say: Say): Promise<void> {
  const offers: string[] = [];
  for (let i = 0; i < OFFERS; i++) offers.push(await approvedOffer(db, sub.clientId, dealInput({ title: `Statement bench ${i}` })));
  await sql`insert into accounts (id, client_id, name, status)
    select 'acc_stb' || g, ${dist.clientId}, 'Bench publisher ' || g, 'active' from generate_series(1, 10) g`.execute(db);
  await sql`insert into orders (id, client_id, order_number, order_key, account_id, customer_name, status, purchased_at)
    select 'ord_stb' || g, ${dist.clientId}, 'stb-' || g, 'bench:stb-' || g,
      case when g % 11 = 0 then null else 'acc_stb' || (g % 11) end, 'Bench Customer', 'active',
      timestamptz '2026-10-01' + (g * interval '4 minutes')
    from generate_series(1, ${ORDERS}) g`.execute(db);
  say(`statements: seeding ${VOUCHERS.toLocaleString('en')} vouchers…`);
  // Prices differ per offer (500 + 37 × its index); revenues at 20 % and 50 % of that, rounded down.
  await sql`insert into vouchers (id, offer_id, order_id, client_id, account_id, counts_stock, redemption_code, barcode,
      customer_name, status, expiration_date, acquired_at, cancelled_at, redeemed_at, updated_at,
      sale_price_amount, sale_price_currency, sale_rebate_amount, sale_rebate_currency, sale_distributor_revenue, sale_account_revenue)
    select 'vch_stb' || g, (${offers}::text[])[1 + g % ${OFFERS}], o.id, ${dist.clientId}, o.account_id, false,
      'STB-' || g, 'STB' || g, 'Bench Customer',
      case when g % 20 = 0 then 'cancelled' when g % 10 = 1 then 'redeemed' else 'acquired' end, '2099-12-31',
      t.at, case when g % 20 = 0 then t.at + interval '1 hour' end, case when g % 10 = 1 then t.at + interval '2 hours' end, t.at,
      p.price, 'USD', 100, 'USD', p.price * 20 / 100, (p.price * 20 / 100) * 50 / 100
    from generate_series(1, ${VOUCHERS}) g
    cross join lateral (select 'ord_stb' || (1 + g % ${ORDERS}) as id, case when (1 + g % ${ORDERS}) % 11 = 0 then null
      else 'acc_stb' || ((1 + g % ${ORDERS}) % 11) end as account_id) o
    cross join lateral (select timestamptz '2026-10-01' + (g * interval '2.5 seconds') as at) t
    cross join lateral (select 500 + 37 * (g % ${OFFERS}) as price) p`.execute(db);
  await sql`insert into voucher_redemptions (id, voucher_id, redeemed_at, rolled_back_at)
    select 'rdm_' || v.id, v.id, v.redeemed_at,
      case when (substr(v.id, 8))::int % 1000 = 1 then v.redeemed_at + interval '1 hour' end
    from vouchers v where v.id like 'vch_stb%' and v.status = 'redeemed'`.execute(db);
  await sql`VACUUM ANALYZE vouchers, voucher_redemptions, orders`.execute(db);
}

/** 10,000 events on `sub`'s offers, as the outbox holds them (100 offers × 100 updates). */
async function seedEvents(db: Db, sub: Key): Promise<void> {
  const offers: string[] = [];
  for (let i = 0; i < FEED_EVENTS / 100; i++) offers.push(await approvedOffer(db, sub.clientId, dealInput({ title: `Feed bench ${i}` })));
  await sql`insert into offer_events (id, offer_id, sequence, type, data, created_at)
    select 'evt_fdb' || g, (${offers}::text[])[1 + g % 100], 1000 + g, 'offer.updated', '{}'::jsonb, now() - interval '1 hour'
    from generate_series(1, ${FEED_EVENTS}) g`.execute(db);
  await sql`VACUUM ANALYZE offer_events`.execute(db);
}

export async function benchStatements(
  deps: { db: Db; config: Readonly<Config> },
  base: string,
  sub: Key,
  dist: Key,
  feedSub: Key,
  say: Say,
): Promise<StatementsBenchResult> {
  const t0 = process.hrtime.bigint();
  await seedVouchers(deps.db, sub, dist, say);
  const seed_s = round3(seconds(t0));
  const period = `?from=${FROM}&to=${TO}`;
  const { start, end } = statementRange(FROM, TO);

  say('statements: the advertiser statement, through HTTP and as the query…');
  let subLines = 0;
  const subService = await median(RUNS, async () => {
    subLines = (await getJson(base, `/submission/beta/statement${period}`, sub.key)).statement.offers.length;
  });
  const subQuery = await median(RUNS, () => submissionStatementRows(deps.db, sub.clientId, start, end));
  say('statements: the distribution statement, through HTTP and as the query…');
  let distLines = 0;
  const distService = await median(RUNS, async () => {
    distLines = (await getJson(base, `/distribution/beta/statement${period}`, dist.key)).statement.lines.length;
  });
  const distQuery = await median(RUNS, () => distributionStatementRows(deps.db, dist.clientId, start, end, revenueShares(deps.config)));

  const plans = await indexPlans(deps.db, start, end);
  const feed = await benchFeed(deps, base, feedSub, say);

  const result: StatementsBenchResult = {
    vouchers: VOUCHERS,
    seed_s,
    submission: { service_s: subService, query_s: subQuery, lines: subLines },
    distribution: { service_s: distService, query_s: distQuery, lines: distLines },
    feed,
    plans,
  };
  // A partial run writes no results file: the figures are printed here too.
  say(`statements: ${JSON.stringify(result)}`);
  return result;
}

type FeedResult = StatementsBenchResult['feed'];

/** The change feed read whole, 1,000 a page, over 10,000 events (a section of its own: `npm run bench -- feed`). */
export async function benchFeed(deps: { db: Db; config: Readonly<Config> }, base: string, sub: Key, say: Say): Promise<FeedResult> {
  say(`feed: the change feed over ${FEED_EVENTS.toLocaleString('en')} events…`);
  await seedEvents(deps.db, sub);
  const readFeed = async () => {
    let events = 0;
    let pages = 0;
    let after: string | undefined;
    for (;;) {
      const page = await getJson(base, `/submission/beta/events?limit=1000${after ? `&after=${after}` : ''}`, sub.key);
      events += page.events.length;
      pages++;
      if (!page.has_more) return { events, pages };
      after = encodeURIComponent(page.next_cursor);
    }
  };
  // The first read also numbers the events (docs/change-feed.md); a live feed numbers them as they come.
  let t = process.hrtime.bigint();
  const first = await readFeed();
  const first_read_s = round3(seconds(t));
  t = process.hrtime.bigint();
  await readFeed();
  const second_read_s = round3(seconds(t));
  // The same pages through the service function, without HTTP and JSON: where the time goes.
  t = process.hrtime.bigint();
  for (let after: string | undefined, more = true; more;) {
    const page = await readEventFeed(
      deps,
      { interface: 'submission', client_id: sub.clientId },
      EventFeedQuery.parse({ limit: '1000', after }),
    );
    more = page.has_more;
    after = page.next_cursor;
  }
  const service_direct_s = round3(seconds(t));

  const result = { ...first, first_read_s, second_read_s, service_direct_s };
  say(`feed: ${JSON.stringify(result)}`);
  return result;
}

/**
 * EXPLAIN of the statement queries' lookups for a client that has no vouchers in the million (the
 * common case: many clients, each a small part): which scans Postgres picks, to show that the
 * indexes of migration 0032 are used. The client holding the million is read by a sequential scan.
 */
async function indexPlans(db: Db, start: Date, end: Date): Promise<Record<string, string[]>> {
  const inPeriod = (c: string) => sql`(${sql.ref(c)} >= ${start} and ${sql.ref(c)} < ${end})`;
  const dayAfter = new Date(end.getTime() + 86_400_000);
  const queries = {
    distribution: sql`select count(*) from vouchers v where v.client_id = 'cli_small'
      and (${inPeriod('v.acquired_at')} or ${inPeriod('v.cancelled_at')})`,
    submission: sql`select count(*) from vouchers v join offers o on o.id = v.offer_id where o.client_id = 'cli_small'
      and (${inPeriod('v.acquired_at')} or ${inPeriod('v.cancelled_at')})`,
    // Redemptions are looked up by time for all clients: a day after the seeded month holds none.
    redemptions: sql`select count(*) from voucher_redemptions r
      where (r.redeemed_at >= ${end} and r.redeemed_at < ${dayAfter}) or (r.rolled_back_at >= ${end} and r.rolled_back_at < ${dayAfter})`,
  };
  const plans: Record<string, string[]> = {};
  for (const [name, q] of Object.entries(queries)) {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${q}`.execute(db);
    plans[name] = rows.map((r) => r['QUERY PLAN'].trim()).filter((l) => /Scan|BitmapOr/.test(l));
  }
  return plans;
}
