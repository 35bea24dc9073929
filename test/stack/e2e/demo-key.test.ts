import { admin } from '../../setup/admin';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

describe("the sandbox's shared demonstration key (spec 5.4)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('keys demo prints the same distribution key every time; it searches and reads, and is refused orders, reservations and accounts', async () => {
    const first = await admin(['keys', 'demo']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^om_test_dist_demo_[A-Za-z0-9_-]{43}\n$/);
    expect((await admin(['keys', 'demo'])).stdout).toBe(first.stdout);
    const key = first.stdout.trim();
    const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
      h.app.inject({ method, url: `${DIST}${url}`, headers: { 'x-service-api-key': key }, ...(payload ? { payload } : {}) });

    const offerId = await seedOffer(h, (await h.client('submission')).clientId);
    for (const url of ['/offers?per_page=5', `/offers/${offerId}`, `/offers/${offerId}.xml`, '/categories', '/categories.xml'])
      expect([url, (await call('GET', url)).statusCode]).toEqual([url, 200]);

    const refused = [
      await call('POST', '/orders', {
        order: { order_number: 'demo-1', customer_name: 'Ada', items: [{ offer_id: offerId, quantity: 1 }] },
      }),
      await call('GET', '/orders'),
      await call('POST', '/accounts', { account: { name: 'Blog', website_url: 'https://blog.example' } }),
      await call('POST', `/offers/${offerId}/reservations`, {
        reservation: { account_id: 'acc_x', quantity_reserved: 1, start_date: '2026-01-01', end_date: '2099-01-01' },
      }),
    ];
    for (const res of refused) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ status: 'ERROR', errors: [{ code: 'forbidden' }] });
    }
    // Nothing was written for it.
    const orders = await h.services.db.selectFrom('orders').select('id').where('client_id', '=', 'cli_demo').execute();
    expect(orders).toEqual([]);
  });

  it('does not exist in production', async () => {
    const res = await admin(['keys', 'demo'], { ...process.env, SERVICE_ENVIRONMENT: 'production' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/only in the sandbox/);
    expect(res.stdout).toBe('');
  });
});
