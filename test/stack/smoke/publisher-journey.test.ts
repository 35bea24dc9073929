import crypto from 'node:crypto';
import { validOffer, seedOffer } from '../../setup/fixtures';
import { harnessWithKeys, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * The stack lane's smoke file: CI runs it on the current Node LTS too (.ci/run), beside the unit and
 * workflows lanes, so a Node release that breaks the HTTP server, the database driver or the
 * Temporal core bridge (which the in-process worker loads) fails there. A publisher searches, orders
 * and the merchant redeems, over real HTTP, the order placed by that worker.
 */
describe('smoke: a publisher searches, orders and has a voucher redeemed, over HTTP', () => {
  let h: Harness;
  let dist: string;
  let sub: { key: string; clientId: string };
  let base: string;
  beforeAll(async () => {
    ({ h, dist, sub } = await harnessWithKeys());
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => h?.close());

  const call = async (key: string, method: string, path: string, body?: object) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-service-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  it(`runs on Node ${process.version}`, async () => {
    const city = `Smoketown ${crypto.randomUUID().slice(0, 8)}`;
    const location = { address_line_1: '1 Main St', city, state_code: 'NY', postal_code: '10118', country_code: 'US' };
    const offerId = await seedOffer(h, sub.clientId, {
      initial_quantity: 3,
      advertiser: { ...(validOffer().advertiser as object), redemption_locations: [location] },
    });

    const found = await call(dist, 'GET', `${DIST}/offers?city=${encodeURIComponent(city)}`);
    expect(found.status).toBe(200);
    expect(found.json.offers.map((o: { id: string }) => o.id)).toEqual([offerId]);

    const placed = await call(dist, 'POST', `${DIST}/orders`, {
      order: { order_number: `smoke-${offerId}`, customer_name: 'Ada Lovelace', items: [{ offer_id: offerId, quantity: 2 }] },
    });
    expect(placed.status).toBe(200);
    const order = placed.json.order;
    expect(order.vouchers).toHaveLength(2);

    const voucher = order.vouchers[0];
    const redeemed = await call(sub.key, 'PUT', `${SUB}/offers/${offerId}/vouchers/${voucher.id}`, { voucher: { status: 'redeemed' } });
    expect(redeemed.status).toBe(200);
    expect(redeemed.json.voucher.status).toBe('redeemed');
    const seen = await call(dist, 'GET', `${DIST}/orders/${order.id}`);
    expect(seen.json.order.vouchers.find((v: { id: string }) => v.id === voucher.id).status).toBe('redeemed');
  });
});
