import { seedOffer } from '../setup/fixtures';
import { createHarness, type Harness } from '../setup/harness';

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
  const count = (body: string, pattern: RegExp) => Number(pattern.exec(body)?.[1] ?? 0);

  it('counts HTTP answers by route template and status, in Prometheus format', async () => {
    const key = await h.key('distribution');
    const route = /http_request_duration_seconds_count\{method="GET",route="\/distribution\/beta\/categories",status="200"\} (\d+)/;
    const before = count(await scrape(), route);
    for (let i = 0; i < 3; i++)
      await h.app.inject({ method: 'GET', url: '/distribution/beta/categories', headers: { 'x-service-api-key': key } });
    expect(count(await scrape(), route)).toBe(before + 3);
    await h.app.inject({ method: 'GET', url: '/distribution/beta/categories' });
    expect(await scrape()).toMatch(/route="\/distribution\/beta\/categories",status="401"/);
  });

  it('counts orders placed and vouchers issued', async () => {
    const { clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId, { initial_quantity: 10 });
    const key = await h.key('distribution');
    const orders = /^orders_placed_total (\d+)/m;
    const vouchers = /^vouchers_issued_total (\d+)/m;
    const before = await scrape();
    const res = await h.app.inject({
      method: 'POST',
      url: '/distribution/beta/orders',
      headers: { 'x-service-api-key': key },
      payload: { order: { order_number: 'metrics-1', customer_name: 'Ada', items: [{ offer_id: offerId, quantity: 3 }] } },
    });
    expect(res.statusCode).toBe(200);
    const after = await scrape();
    expect(count(after, orders)).toBe(count(before, orders) + 1);
    expect(count(after, vouchers)).toBe(count(before, vouchers) + 3);
  });

  it("includes the Temporal worker's own metrics", async () => {
    let body = '';
    for (let i = 0; i < 50 && !/temporal_/.test(body); i++) {
      body = await scrape();
      if (!/temporal_/.test(body)) await new Promise((r) => setTimeout(r, 200));
    }
    expect(body).toMatch(/^temporal_\w+/m);
  });
});
