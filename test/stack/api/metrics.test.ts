import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { eventually } from '../../setup/eventually';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { disableEndpoint, setEndpoint } from '../../../store/callback-endpoints';
import { DIST, SUB } from '../../setup/paths';

describe('/metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(() => h.close());

  const scrape = async () => {
    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    return res.body;
  };
  /**
   * One series' value. The metric must be exported (else "before = after" would pass for a metric
   * that never is); a labelled series not observed yet is 0 (prom-client shows it from its first).
   */
  const count = (body: string, name: string, labels?: string) => {
    const family = name.replace(/_(count|sum|bucket)$/, '');
    if (!body.split('\n').some((l) => l.startsWith(`# TYPE ${name} `) || l.startsWith(`# TYPE ${family} `)))
      throw new Error(`/metrics does not export ${name}`);
    const series = `${name}${labels === undefined ? '' : `{${labels}}`} `;
    const line = body.split('\n').find((l) => l.startsWith(series));
    if (line) return Number(line.slice(series.length));
    if (labels !== undefined) return 0;
    throw new Error(`/metrics exports ${name} without a value`);
  };

  it('counts HTTP answers by route template and status, in Prometheus format', async () => {
    const key = await h.key('distribution');
    const route = ['http_request_duration_seconds_count', 'method="GET",route="/distribution/beta/categories",status="200"'] as const;
    const first = await scrape();
    expect(() => count(first, 'never_exported_total')).toThrow('/metrics does not export never_exported_total');
    const before = count(first, ...route);
    for (let i = 0; i < 3; i++) await h.app.inject({ method: 'GET', url: `${DIST}/categories`, headers: { 'x-service-api-key': key } });
    expect(count(await scrape(), ...route)).toBe(before + 3);
    await h.app.inject({ method: 'GET', url: `${DIST}/categories` });
    expect(await scrape()).toMatch(/route="\/distribution\/beta\/categories",status="401"/);
  });

  const order = async (key: string, orderNumber: string, offerId: string, quantity: number) =>
    h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': key },
      payload: { order: { order_number: orderNumber, customer_name: 'Ada', items: [{ offer_id: offerId, quantity }] } },
    });

  it('counts orders placed, vouchers issued and vouchers redeemed', async () => {
    const sub = await h.client('submission');
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const key = await h.key('distribution');
    const [orders, vouchers, redeemed] = ['orders_placed_total', 'vouchers_issued_total', 'vouchers_redeemed_total'];
    const before = await scrape();
    const res = await order(key, 'metrics-1', offerId, 3);
    expect(res.statusCode).toBe(200);
    const after = await scrape();
    expect(count(after, orders)).toBe(count(before, orders) + 1);
    expect(count(after, vouchers)).toBe(count(before, vouchers) + 3);
    expect(count(after, redeemed)).toBe(count(before, redeemed));

    const code = res.json().order.vouchers[0].redemption_code as string;
    const { advertiser_id: adv } = await h.services.db
      .selectFrom('offers')
      .select('advertiser_id')
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow();
    const url = `${SUB}/advertisers/${adv}/vouchers/${code}`;
    const redeem = () =>
      h.app.inject({ method: 'PUT', url, headers: { 'x-service-api-key': sub.key }, payload: { voucher: { status: 'redeemed' } } });
    expect((await redeem()).statusCode).toBe(200);
    expect(count(await scrape(), redeemed)).toBe(count(before, redeemed) + 1);
    // Refused the second time: nothing more was redeemed, so the counter stays.
    expect((await redeem()).statusCode).toBe(409);
    expect(count(await scrape(), redeemed)).toBe(count(before, redeemed) + 1);
  });

  it('counts refused orders by reason, and a refused order places nothing', async () => {
    const { clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId, { initial_quantity: 2 });
    const key = await h.key('distribution');
    const refused = 'orders_refused_total';
    const placed = 'orders_placed_total';
    const before = await scrape();
    const res = await order(key, 'metrics-refused', offerId, 5);
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].code).toBe('insufficient_stock');
    const afterStock = await scrape();
    expect(count(afterStock, refused, 'reason="insufficient_stock"')).toBe(count(before, refused, 'reason="insufficient_stock"') + 1);
    expect(count(afterStock, placed)).toBe(count(before, placed));

    // Refused by the API before any workflow starts (an account the client does not have).
    const noAccount = await h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': key },
      payload: {
        order: {
          order_number: 'metrics-acct',
          account_id: 'acc_nobody',
          customer_name: 'Ada',
          items: [{ offer_id: offerId, quantity: 1 }],
        },
      },
    });
    expect(noAccount.statusCode).toBe(422);
    expect(count(await scrape(), refused, 'reason="invalid_field"')).toBe(count(before, refused, 'reason="invalid_field"') + 1);
  });

  it('reports the review queue length and the oldest wait, read from the database at scrape time', async () => {
    const [length, oldest] = ['review_queue_length', 'review_queue_oldest_age_seconds'];
    const { clientId } = await h.client('submission');
    const before = count(await scrape(), length);
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    try {
      // Submitted two hours ago: the queue's oldest wait is at least that.
      await h.services.db
        .updateTable('offers')
        .set({ submitted_at: sql<Date>`now() - interval '2 hours'` })
        .where('id', '=', offerId)
        .execute();
      const body = await scrape();
      expect(count(body, length)).toBe(before + 1);
      expect(count(body, oldest)).toBeGreaterThanOrEqual(7200);
    } finally {
      // Out of the queue again, so other tests' "oldest first" views are not disturbed.
      await h.services.db.updateTable('offers').set({ status: 'cancelled' }).where('id', '=', offerId).execute();
    }
    expect(count(await scrape(), length)).toBe(before);
  });

  it("reports each enabled callback endpoint's lag: its oldest undelivered callback's age", async () => {
    const { clientId } = await h.client('submission');
    const { endpoint } = await setEndpoint(h.services.db, {
      clientId,
      url: 'http://127.0.0.1:9/hook',
      format: 'json',
      secretKeys: undefined,
    });
    const lag = new RegExp(`^callback_lag_seconds\\{endpoint="${endpoint.id}"\\} ([\\d.e+]+)`, 'm');
    expect(lag.exec(await scrape())?.[1]).toBe('0');

    // One callback waiting since ten minutes ago (for an event of a seeded offer).
    const offerId = await seedOffer(h, clientId);
    const event = await h.services.db
      .selectFrom('offer_events')
      .select(['id', 'sequence'])
      .where('offer_id', '=', offerId)
      .executeTakeFirstOrThrow();
    await h.services.db
      .insertInto('callback_deliveries')
      .values({
        id: `cbd_metrics_${endpoint.id}`,
        endpoint_id: endpoint.id,
        event_id: event.id,
        offer_id: offerId,
        sequence: event.sequence,
        type: 'offer.created',
        payload: '{}',
        created_at: sql<Date>`now() - interval '10 minutes'`,
      })
      .execute();
    expect(count(await scrape(), 'callback_lag_seconds', `endpoint="${endpoint.id}"`)).toBeGreaterThanOrEqual(600);

    // A disabled endpoint is no longer reported (no stale series).
    await disableEndpoint(h.services.db, endpoint.id, 'test over');
    expect(await scrape()).not.toMatch(lag);
  });

  it('has a Grafana dashboard whose every query names metrics /metrics exposes, covering the business metrics', async () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../docs/grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    // Every family /metrics declares, with a histogram's series suffixes.
    const exposed = new Set(
      [...(await scrape()).matchAll(/^# TYPE (\w+) (\w+)/gm)].flatMap(([, name, type]) =>
        type === 'histogram' ? [name, `${name}_bucket`, `${name}_sum`, `${name}_count`] : [name],
      ),
    );
    // The metric names of a PromQL expression: identifiers left once label matchers, ranges,
    // grouping clauses and function names are stripped.
    const metricsOf = (expr: string) =>
      expr.replace(/\{[^}]*\}|\[[^\]]*\]|\b(by|without)\s*\([^)]*\)/g, ' ').match(/\b[a-zA-Z_:][\w:]*\b(?!\s*\()/g) ?? [];
    const used = new Set<string>();
    expect(dashboard.panels.length).toBeGreaterThan(0);
    for (const panel of dashboard.panels) {
      expect(panel.targets.length).toBeGreaterThan(0);
      for (const { expr } of panel.targets) {
        const names = metricsOf(expr);
        expect({ panel: panel.title, names }).toEqual({ panel: panel.title, names: expect.arrayContaining([expect.any(String)]) });
        for (const name of names) {
          expect({ panel: panel.title, name, exposed: exposed.has(name) }).toEqual({ panel: panel.title, name, exposed: true });
          used.add(name);
        }
      }
    }
    for (const name of [
      'orders_placed_total',
      'orders_refused_total',
      'vouchers_issued_total',
      'vouchers_redeemed_total',
      'review_queue_length',
      'review_queue_oldest_age_seconds',
      'callback_lag_seconds',
    ])
      expect(used).toContain(name);
  });

  it("includes the Temporal worker's own metrics", async () => {
    // The worker's runtime exports them once it has started polling.
    await eventually('temporal_ metrics on /metrics', async () => /^temporal_\w+/m.test(await scrape()));
  });
});
