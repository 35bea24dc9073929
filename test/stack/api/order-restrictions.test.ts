import { seedOffer } from '../../setup/fixtures';
import { harnessWithKeys, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

/** Issue 20 items 1 and 2: the advertiser's limits per order and per customer are kept by every order. */
describe("orders keep the advertiser's restrictions", () => {
  let h: Harness;
  let key: string;
  let subClient: string;
  beforeAll(async () => {
    ({
      h,
      dist: key,
      sub: { clientId: subClient },
    } = await harnessWithKeys());
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, k = key) =>
    h.app.inject({ method, url: `${DIST}${url}`, headers: { 'x-service-api-key': k }, ...(payload ? { payload: payload as object } : {}) });
  const order = (items: { offer_id: string; quantity: number }[], extra: Record<string, unknown> = {}, k = key) =>
    call(
      'POST',
      '/orders',
      { order: { order_number: `n-${Math.random().toString(36).slice(2)}`, customer_name: 'Ada Lovelace', items, ...extra } },
      k,
    );
  const orderXml = (xml: string) =>
    h.app.inject({
      method: 'POST',
      url: `${DIST}/orders.xml`,
      payload: xml,
      headers: { 'x-service-api-key': key, 'content-type': 'application/xml', accept: 'application/xml' },
    });
  const stock = async (offerId: string) =>
    (await h.services.db.selectFrom('offers').select('quantity_in_stock').where('id', '=', offerId).executeTakeFirstOrThrow())
      .quantity_in_stock;

  describe('limit_per_order', () => {
    it('refuses an item above the limit with 422 on its quantity, and takes nothing from any item', async () => {
      const limited = await seedOffer(h, subClient, { initial_quantity: 10, restrictions: { limit_per_order: 2 } });
      const other = await seedOffer(h, subClient, { initial_quantity: 10 });
      const res = await order([
        { offer_id: other, quantity: 1 },
        { offer_id: limited, quantity: 3 },
      ]);
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0]).toMatchObject({
        code: 'invalid_field',
        field: 'items[1].quantity',
        offer_id: limited,
        limit_per_order: 2,
      });
      expect(await stock(limited)).toBe(10);
      expect(await stock(other)).toBe(10);
      expect((await order([{ offer_id: limited, quantity: 2 }])).statusCode).toBe(200);
      expect(await stock(limited)).toBe(8);
    });

    it('holds for an order sent as XML', async () => {
      const limited = await seedOffer(h, subClient, { initial_quantity: 10, restrictions: { limit_per_order: 1 } });
      const xml = (n: number) =>
        `<?xml version="1.0"?><order><order_number>xml-limit-${n}-${limited}</order_number><customer_name>Alan Turing</customer_name><items><item><offer_id>${limited}</offer_id><quantity>${n}</quantity></item></items></order>`;
      const refused = await orderXml(xml(2));
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain('<field>items[0].quantity</field>');
      expect(refused.body).toContain('limit_per_order');
      expect((await orderXml(xml(1))).statusCode).toBe(200);
      expect(await stock(limited)).toBe(9);
    });

    it('shows the limit to publishers before they order', async () => {
      const limited = await seedOffer(h, subClient, { initial_quantity: 10, restrictions: { limit_per_order: 4 } });
      const res = await call('GET', `/offers/${limited}`);
      expect(res.json().offer.restrictions).toMatchObject({ limit_per_order: 4 });
    });
  });
  describe('limit_per_customer', () => {
    const placed = (results: { statusCode: number }[]) => results.filter((r) => r.statusCode === 200).length;

    it('never lets parallel orders of one customer exceed it; others are refused with 409 customer_limit_reached', async () => {
      const offerId = await seedOffer(h, subClient, { initial_quantity: 100, restrictions: { limit_per_customer: 3 } });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => order([{ offer_id: offerId, quantity: 1 }], { customer_reference: 'cust-42' })),
      );
      expect(placed(results)).toBe(3);
      for (const r of results.filter((x) => x.statusCode !== 200)) {
        expect(r.statusCode).toBe(409);
        expect(r.json().errors[0]).toMatchObject({
          code: 'customer_limit_reached',
          field: 'items[0].quantity',
          offer_id: offerId,
          limit_per_customer: 3,
        });
      }
      expect(await stock(offerId)).toBe(97);
      // Another customer of the same publisher, and the same reference at another publisher, count apart.
      expect((await order([{ offer_id: offerId, quantity: 3 }], { customer_reference: 'cust-43' })).statusCode).toBe(200);
      const other = await h.key('distribution');
      expect((await order([{ offer_id: offerId, quantity: 3 }], { customer_reference: 'cust-42' }, other)).statusCode).toBe(200);
    });

    it('counts by customer_name folded (trimmed, case-folded) when no reference is given', async () => {
      const offerId = await seedOffer(h, subClient, { initial_quantity: 100, restrictions: { limit_per_customer: 2 } });
      expect((await order([{ offer_id: offerId, quantity: 1 }], { customer_name: 'Grace Hopper' })).statusCode).toBe(200);
      expect((await order([{ offer_id: offerId, quantity: 1 }], { customer_name: '  GRACE hopper ' })).statusCode).toBe(200);
      const third = await order([{ offer_id: offerId, quantity: 1 }], { customer_name: 'grace hopper' });
      expect(third.statusCode).toBe(409);
      expect(third.json().errors[0]).toMatchObject({ code: 'customer_limit_reached', held: 2, available: 0 });
    });

    it('counts name variants as one customer: invisible characters, inner spaces, a soft hyphen, look-alikes (issue 34)', async () => {
      const offerId = await seedOffer(h, subClient, { initial_quantity: 100, restrictions: { limit_per_customer: 5 } });
      const variants = ['Ada Lovelace', 'Ada\u200b Lovelace', 'Ada  Lovelace', 'Ada Love\u00adlace', '\u0410da Lovelace'];
      for (const customer_name of variants)
        expect((await order([{ offer_id: offerId, quantity: 1 }], { customer_name })).statusCode).toBe(200);
      const sixth = await order([{ offer_id: offerId, quantity: 1 }], { customer_name: 'ADA LOVEL\u0410CE' });
      expect(sixth.statusCode).toBe(409);
      expect(sixth.json().errors[0]).toMatchObject({ code: 'customer_limit_reached', held: 5, available: 0 });
      expect((await order([{ offer_id: offerId, quantity: 1 }], { customer_name: 'Grace Hopper' })).statusCode).toBe(200);
    });

    it('gives units back when an order or a voucher is cancelled', async () => {
      const offerId = await seedOffer(h, subClient, { initial_quantity: 100, restrictions: { limit_per_customer: 2 } });
      const first = await order([{ offer_id: offerId, quantity: 2 }], { customer_reference: 'c-1' });
      expect(first.statusCode).toBe(200);
      expect((await order([{ offer_id: offerId, quantity: 1 }], { customer_reference: 'c-1' })).statusCode).toBe(409);
      const [voucher] = first.json().order.vouchers;
      const cancelled = await call('PUT', `/offers/${offerId}/vouchers/${voucher.id}`, { voucher: { status: 'cancelled' } });
      expect(cancelled.statusCode).toBe(200);
      const second = await order([{ offer_id: offerId, quantity: 1 }], { customer_reference: 'c-1' });
      expect(second.statusCode).toBe(200);
      expect((await call('PUT', `/orders/${first.json().order.id}`, { order: { status: 'cancelled' } })).statusCode).toBe(200);
      expect((await order([{ offer_id: offerId, quantity: 1 }], { customer_reference: 'c-1' })).statusCode).toBe(200);
      expect((await order([{ offer_id: offerId, quantity: 1 }], { customer_reference: 'c-1' })).statusCode).toBe(409);
    });

    it('takes customer_reference from an XML order and shows it on the order', async () => {
      const offerId = await seedOffer(h, subClient, { initial_quantity: 100, restrictions: { limit_per_customer: 1 } });
      const xml = (n: string) =>
        `<?xml version="1.0"?><order><order_number>xml-cust-${n}-${offerId}</order_number><customer_name>Alan Turing</customer_name><customer_reference>pub-7</customer_reference><items><item><offer_id>${offerId}</offer_id><quantity>1</quantity></item></items></order>`;
      const ok = await orderXml(xml('a'));
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('<customer_reference>pub-7</customer_reference>');
      const refused = await orderXml(xml('b'));
      expect(refused.statusCode).toBe(409);
      expect(refused.body).toContain('<code>customer_limit_reached</code>');
    });
  });
});
