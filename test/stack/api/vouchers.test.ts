import { seedOffer } from '../../setup/fixtures';
import { type Harness, harnessWithKeys } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

describe('vouchers: the same codes on both interfaces', () => {
  let h: Harness;
  let dist: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => ({ h, dist, sub } = await harnessWithKeys()));
  afterAll(() => h.close());

  const call = (method: 'GET' | 'PUT', url: string, key: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload: payload as object } : {}) });
  const buy = async (offerId: string, quantity = 2) => {
    const res = await h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': dist },
      payload: {
        order: {
          order_number: `v-${Math.random().toString(36).slice(2)}`,
          customer_name: 'Edsger Dijkstra',
          items: [{ offer_id: offerId, quantity }],
        },
      },
    });
    expect(res.statusCode).toBe(200);
    return res.json().order.vouchers as { id: string; redemption_code: string }[];
  };
  const stock = async (offerId: string) =>
    (await h.services.db.selectFrom('offers').select('quantity_in_stock').where('id', '=', offerId).executeTakeFirstOrThrow())
      .quantity_in_stock;

  it('lists and shows vouchers to the advertiser and to the distributor, nobody else', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const [v1] = await buy(offerId);
    for (const [base, key] of [
      [SUB, sub.key],
      [DIST, dist],
    ] as const) {
      const list = (await call('GET', `${base}/offers/${offerId}/vouchers`, key)).json();
      expect(list.total).toBe(2);
      const one = await call('GET', `${base}/offers/${offerId}/vouchers/${v1.id}`, key);
      expect(one.json().voucher).toMatchObject({ id: v1.id, status: 'acquired', customer_name: 'Edsger Dijkstra' });
    }
    const recent = (await call('GET', `${SUB}/vouchers?recently_changed=1`, sub.key)).json();
    expect(recent.vouchers.map((v: { id: string }) => v.id)).toContain(v1.id);
    const stranger = await h.key('submission');
    expect((await call('GET', `${SUB}/offers/${offerId}/vouchers/${v1.id}`, stranger)).statusCode).toBe(404);
    expect((await call('GET', `${SUB}/offers/${offerId}/vouchers`, stranger)).statusCode).toBe(404);
    expect((await call('GET', `${SUB}/vouchers?recently_changed=1`, stranger)).json().total).toBe(0);
    const otherDist = await h.key('distribution');
    expect((await call('GET', `${DIST}/offers/${offerId}/vouchers/${v1.id}`, otherDist)).statusCode).toBe(404);
    const xml = await call('GET', `${SUB}/offers/${offerId}/vouchers.xml`, sub.key);
    expect((xml.body.match(/<voucher><id>/g) ?? []).length).toBe(2);
    const print = await call('GET', `${DIST}/vouchers/${v1.id}/print`, dist);
    expect(print.statusCode).toBe(200);
    expect(print.body).toContain(v1.redemption_code);
  });

  it('finds and redeems by advertiser and redemption code; redeeming twice is 409', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const [v1, v2] = await buy(offerId);
    const { advertiser_id: adv } = await h.services.db
      .selectFrom('offers')
      .select('advertiser_id')
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow();
    const byCode = await call('GET', `${SUB}/advertisers/${adv}/vouchers/${v1.redemption_code}`, sub.key);
    expect(byCode.json().voucher.id).toBe(v1.id);
    expect((await call('GET', `${SUB}/advertisers/adv_nobody/vouchers/${v1.redemption_code}`, sub.key)).statusCode).toBe(404);
    const redeem = await call('PUT', `${SUB}/advertisers/${adv}/vouchers/${v1.redemption_code}`, sub.key, {
      voucher: { status: 'redeemed' },
    });
    expect(redeem.statusCode).toBe(200);
    expect(redeem.json().voucher).toMatchObject({ status: 'redeemed', redeemed_at: expect.any(String) });
    const again = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${v1.id}`, sub.key, { voucher: { status: 'redeemed' } });
    expect(again.statusCode).toBe(409);
    // Redeem in XML, by id under the advertiser.
    const byId = await h.app.inject({
      method: 'PUT',
      url: `${SUB}/advertisers/${adv}/vouchers/${v2.id}`,
      headers: { 'x-service-api-key': sub.key, 'content-type': 'application/xml', accept: 'application/xml' },
      payload: '<voucher><status>redeemed</status></voucher>',
    });
    expect(byId.statusCode).toBe(200);
    expect(byId.body).toContain(`<voucher><id>${v2.id}</id>`);
    expect(byId.body).toContain('<status>redeemed</status>');
    // The distributor sees the redemption.
    expect((await call('GET', `${DIST}/offers/${offerId}/vouchers/${v1.id}`, dist)).json().voucher.status).toBe('redeemed');
  });

  it('two racing redemptions of one voucher give exactly one success', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const [v] = await buy(offerId, 1);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        call('PUT', `${SUB}/offers/${offerId}/vouchers/${v.id}`, sub.key, { voucher: { status: 'redeemed' } }),
      ),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(7);
  });

  it('cancels a voucher (its unit returns to stock); a cancelled or expired voucher cannot be redeemed', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const [v1, v2] = await buy(offerId);
    expect(await stock(offerId)).toBe(8);
    const cancel = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${v1.id}`, sub.key, { voucher: { status: 'cancelled' } });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json().voucher).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(String) });
    expect(await stock(offerId)).toBe(9);
    const redeemCancelled = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${v1.id}`, sub.key, { voucher: { status: 'redeemed' } });
    expect(redeemCancelled.statusCode).toBe(409);
    await h.services.db.updateTable('vouchers').set({ expiration_date: '2020-01-01' }).where('id', '=', v2.id).execute();
    const expired = await call('PUT', `${DIST}/offers/${offerId}/vouchers/${v2.id}`, dist, { voucher: { status: 'redeemed' } });
    expect(expired.statusCode).toBe(409);
    expect(expired.json().errors[0].message).toMatch(/expired/);
    const later = await seedOffer(h, sub.clientId, { initial_quantity: 10, vouchers_activation_date: '2099-01-01' });
    const [early] = await buy(later, 1);
    const notYet = await call('PUT', `${SUB}/offers/${later}/vouchers/${early.id}`, sub.key, { voucher: { status: 'redeemed' } });
    expect(notYet.statusCode).toBe(409);
    expect(notYet.json().errors[0].message).toMatch(/before 2099-01-01/);
    const bad = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${v2.id}`, sub.key, { voucher: { status: 'lost' } });
    expect(bad.statusCode).toBe(422);
  });
});
