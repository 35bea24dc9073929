import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../../store/database';
import { createOrderActivities } from '../../../activities/orders';
import { seedOffer } from '../../setup/fixtures';
import { harnessWithKeys, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';
import { orderCancellationWorkflowId } from '../../../workflows/shared/ids';

describe('orders: placed through the intake, each issuing its vouchers exactly once', () => {
  let h: Harness;
  let key: string;
  let sub: { key: string; clientId: string };
  let subClient: string;
  beforeAll(async () => {
    ({ h, dist: key, sub } = await harnessWithKeys());
    subClient = sub.clientId;
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, k = key) =>
    h.app.inject({ method, url: `${DIST}${url}`, headers: { 'x-service-api-key': k }, ...(payload ? { payload: payload as object } : {}) });
  const order = (items: { offer_id: string; quantity: number }[], extra: Record<string, unknown> = {}, k = key) =>
    call(
      'POST',
      '/orders',
      { order: { order_number: `n-${Math.random().toString(36).slice(2)}`, customer_name: 'Ada Lovelace', items, ...extra } },
      k,
    );
  const stock = async (offerId: string) =>
    (
      await h.services.db
        .selectFrom('offers')
        .select(['quantity_in_stock', 'reserved_quantity'])
        .where('id', '=', offerId)
        .executeTakeFirstOrThrow()
    ).quantity_in_stock;

  it('an order of 2 units gives 2 distinct vouchers and takes 2 from stock', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 10 });
    const res = await order([{ offer_id: offerId, quantity: 2 }]);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('OK');
    expect(body.order).toMatchObject({ status: 'active', customer_name: 'Ada Lovelace', items: [{ offer_id: offerId, quantity: 2 }] });
    const codes = body.order.vouchers.map((v: { redemption_code: string }) => v.redemption_code);
    expect(new Set(codes).size).toBe(2);
    for (const v of body.order.vouchers) {
      expect(v).toMatchObject({ status: 'acquired', offer_id: offerId, expiration_date: '2099-12-31' });
      expect(v.redemption_code).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
      expect(v.print_url).toMatch(/^http:\/\/localhost:80\/customer\/vouchers\/[0-9a-f]{64}$/);
      expect(v.barcode).toBe(v.redemption_code.replace(/-/g, ''));
    }
    expect(await stock(offerId)).toBe(8);
    const events = await h.services.db
      .selectFrom('offer_events')
      .select(['type', 'data'])
      .where('offer_id', '=', offerId)
      .where('type', '=', 'offer.stock_changed')
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ quantity_in_stock: 8, change: -2 });
    const got = await call('GET', `/orders/${body.order.id}`);
    expect(got.json().order).toEqual(body.order);
  });

  it('sets expiry N days after purchase, and clips coupons without a stock', async () => {
    const deal = await seedOffer(h, subClient, { initial_quantity: 5, vouchers_expire: { days_after_purchase: 30 } });
    const coupon = await seedOffer(h, subClient, {
      type: 'coupon',
      initial_quantity: undefined,
      price: undefined,
      value: undefined,
      discount: undefined,
    });
    const res = await order([
      { offer_id: deal, quantity: 1 },
      { offer_id: coupon, quantity: 3 },
    ]);
    expect(res.statusCode).toBe(200);
    const vouchers = res.json().order.vouchers;
    expect(vouchers).toHaveLength(4);
    const expected = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    expect(vouchers.find((v: { offer_id: string }) => v.offer_id === deal).expiration_date).toBe(expected);
    expect(await stock(coupon)).toBeNull();
    expect(await stock(deal)).toBe(4);
  });

  it('answers a duplicate order_number with 409 and the existing order id, which GET ?order_number= finds', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 10 });
    const payload = { order: { order_number: 'dup-1', customer_name: 'Grace Hopper', items: [{ offer_id: offerId, quantity: 1 }] } };
    const first = await call('POST', '/orders', payload);
    expect(first.statusCode).toBe(200);
    const again = await call('POST', '/orders', payload);
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0]).toMatchObject({ code: 'duplicate', order_id: first.json().order.id });
    const found = (await call('GET', '/orders?order_number=dup-1')).json();
    expect(found.total).toBe(1);
    expect(found.orders[0].id).toBe(first.json().order.id);
    expect(await stock(offerId)).toBe(9);
    // Another client may use the same order_number: numbers are unique per client.
    const other = await h.key('distribution');
    expect((await call('POST', '/orders', payload, other)).statusCode).toBe(200);
  });

  it('refuses more than the stock with 409 and takes nothing, from any item', async () => {
    const a = await seedOffer(h, subClient, { initial_quantity: 5 });
    const b = await seedOffer(h, subClient, { initial_quantity: 2 });
    const res = await order(
      [
        { offer_id: a, quantity: 2 },
        { offer_id: b, quantity: 3 },
      ],
      { order_number: 'too-many' },
    );
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({ code: 'insufficient_stock', offer_id: b, available: 2 });
    expect(await stock(a)).toBe(5);
    expect(await stock(b)).toBe(2);
    expect((await call('GET', '/orders?order_number=too-many')).json().total).toBe(0);
    // A refused order_number may be used again, corrected.
    const retry = await order(
      [
        { offer_id: a, quantity: 2 },
        { offer_id: b, quantity: 2 },
      ],
      { order_number: 'too-many' },
    );
    expect(retry.statusCode).toBe(200);
    expect(await stock(b)).toBe(0);
    const soldOut = await h.services.db
      .selectFrom('offer_events')
      .select('type')
      .where('offer_id', '=', b)
      .where('type', '=', 'offer.sold_out')
      .execute();
    expect(soldOut).toHaveLength(1);
  });

  it('refuses invalid input with 422 naming the field, and unsellable offers', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 5 });
    const bad = await call('POST', '/orders', { order: { order_number: 'x1', customer_name: '  ', items: [{ offer_id: offerId }] } });
    expect(bad.statusCode).toBe(422);
    const fields = bad.json().errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['customer_name', 'items[0].quantity']));
    const zero = await order([{ offer_id: offerId, quantity: 0 }]);
    expect(zero.statusCode).toBe(422);
    const suspended = await seedOffer(h, subClient, { initial_quantity: 5 }, 'suspended');
    const res = await order([{ offer_id: suspended, quantity: 1 }]);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'items[0].offer_id' });
    const ended = await seedOffer(h, subClient, {
      initial_quantity: 5,
      start_date: '2020-01-01',
      end_date: '2021-01-01',
      vouchers_expire: { on: '2021-06-01' },
    });
    expect((await order([{ offer_id: ended, quantity: 1 }])).statusCode).toBe(422);
  });

  it('cancels an order through its cancellation workflow: vouchers cancelled, stock returned', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 4 });
    const placed = (await order([{ offer_id: offerId, quantity: 3 }])).json().order;
    expect(await stock(offerId)).toBe(1);
    const res = await call('PUT', `/orders/${placed.id}`, { order: { status: 'cancelled' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().order.status).toBe('cancelled');
    expect(res.json().order.vouchers.map((v: { status: string }) => v.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(await stock(offerId)).toBe(4);
    const twice = await call('PUT', `/orders/${placed.id}`, { order: { status: 'cancelled' } });
    expect(twice.statusCode).toBe(200);
    expect(twice.json().order).toEqual(res.json().order);
    expect(await stock(offerId)).toBe(4);
  });

  // Cancelling is a workflow of its own, apart from placing (the order intake), so an order can be
  // cancelled at any age: redeemed vouchers stay, the others return their units, once.
  it('cancelling keeps a redeemed voucher and returns the others, once however often it is asked', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 5 });
    const placed = (await order([{ offer_id: offerId, quantity: 3 }])).json().order;
    expect(await stock(offerId)).toBe(2);
    const redeemed = await h.app.inject({
      method: 'PUT',
      url: `${SUB}/offers/${offerId}/vouchers/${placed.vouchers[0].id}`,
      headers: { 'x-service-api-key': sub.key },
      payload: { voucher: { status: 'redeemed' } },
    });
    expect(redeemed.statusCode).toBe(200);

    const res = await call('PUT', `/orders/${placed.id}`, { order: { status: 'cancelled' } });
    expect(res.statusCode).toBe(200);
    const after = res.json().order;
    expect(after.status).toBe('cancelled');
    const statusOf = Object.fromEntries(after.vouchers.map((v: { id: string; status: string }) => [v.id, v.status]));
    expect(statusOf[placed.vouchers[0].id]).toBe('redeemed');
    expect(Object.values(statusOf).sort()).toEqual(['cancelled', 'cancelled', 'redeemed']);
    expect((await call('GET', `/orders/${placed.id}`)).json().order).toEqual(after);
    expect(await stock(offerId)).toBe(4); // the two unused units are back; the redeemed one was used
    const workflow = await h.services.temporal.workflow.getHandle(orderCancellationWorkflowId(placed.id)).describe();
    expect(workflow.status.name).toBe('COMPLETED');

    // Again, and three times at once: the same cancelled order, nothing returned twice.
    const again = await Promise.all([1, 2, 3].map(() => call('PUT', `/orders/${placed.id}`, { order: { status: 'cancelled' } })));
    expect(again.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    for (const r of again) expect(r.json().order).toEqual(after);
    expect(await stock(offerId)).toBe(4);
    const returned = await h.services.db
      .selectFrom('offer_events')
      .select('data')
      .where('offer_id', '=', offerId)
      .where('type', '=', 'offer.stock_changed')
      .orderBy('sequence') // rows come back in no set order otherwise
      .execute();
    expect(returned.map((e) => (e.data as { change: number }).change)).toEqual([-3, 2]);
  });

  it('concurrent first cancellations share one run and return the units once', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 4 });
    const placed = (await order([{ offer_id: offerId, quantity: 4 }])).json().order;
    expect(await stock(offerId)).toBe(0);
    const answers = await Promise.all([1, 2, 3, 4].map(() => call('PUT', `/orders/${placed.id}`, { order: { status: 'cancelled' } })));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    for (const r of answers) expect(r.json().order.status).toBe('cancelled');
    expect(await stock(offerId)).toBe(4);
  });

  it('hides an order from another client (404)', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 4 });
    const placed = (await order([{ offer_id: offerId, quantity: 1 }])).json().order;
    const other = await h.key('distribution');
    expect((await call('GET', `/orders/${placed.id}`, undefined, other)).statusCode).toBe(404);
    expect((await call('PUT', `/orders/${placed.id}`, { order: { status: 'cancelled' } }, other)).statusCode).toBe(404);
    expect((await call('GET', '/orders', undefined, other)).json().total).toBe(0);
  });

  it('places a batch in the same 6 statements whatever its size (one per table), and a retry finds it unchanged', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 13 });
    const distClient = (await h.client('distribution')).clientId;
    const statements: string[] = [];
    const pool = new pg.Pool({ connectionString: h.config.DATABASE_URL, max: 1 });
    const counted = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: (e) => void (/^(begin|commit|rollback)\b/i.test(e.query.sql) || statements.push(e.query.sql)),
    });
    const { placeOrderBatch } = createOrderActivities({ db: counted, config: h.config, metrics: h.services.metrics });
    const batch = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        orderKey: `order:${distClient}:${prefix}-${i}`,
        orderId: `ord_${prefix}_${i}_${Math.random().toString(36).slice(2)}`,
        clientId: distClient,
        orderNumber: `${prefix}-${i}`,
        accountId: null,
        applicationId: null,
        customerName: 'Ada',
        shippingAddress: null,
        items: [{ offer_id: offerId, quantity: 2 }],
        requestId: `${prefix}/${i}`,
      }));
    try {
      const one = batch('rt1', 1);
      const placed = await placeOrderBatch({ orders: one });
      // Offers locked, orders found, then orders, offers with their events, items, vouchers written.
      expect(statements).toHaveLength(6);
      expect(placed).toMatchObject([{ ok: true, issued: 2, orderSnapshot: { id: one[0].orderId, items: [{ quantity: 2 }] } }]);
      statements.length = 0;
      const five = await placeOrderBatch({ orders: batch('rt5', 5) });
      expect(statements).toHaveLength(6);
      expect(five.map((a) => a.ok && a.issued)).toEqual([2, 2, 2, 2, 2]);
      statements.length = 0;
      const again = await placeOrderBatch({ orders: one });
      expect(again).toMatchObject([{ ok: true, issued: 0 }]);
      const ids = (a: (typeof again)[number]) => a.ok && 'orderSnapshot' in a && a.orderSnapshot.vouchers.map((v) => v.id);
      expect(ids(again[0])).toEqual(ids(placed[0]));
      expect(await stock(offerId)).toBe(1);
    } finally {
      await counted.destroy();
    }
  });

  it('40 concurrent orders of 1 against a stock of 10 give exactly 10 orders and 10 vouchers', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 10 });
    const results = await Promise.all(Array.from({ length: 40 }, () => order([{ offer_id: offerId, quantity: 1 }])));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(10);
    expect(codes.filter((c) => c === 409)).toHaveLength(30);
    expect(await stock(offerId)).toBe(0);
    const vouchers = await h.services.db.selectFrom('vouchers').select('redemption_code').where('offer_id', '=', offerId).execute();
    expect(vouchers).toHaveLength(10);
    expect(new Set(vouchers.map((v) => v.redemption_code)).size).toBe(10);
    const orders = await h.services.db.selectFrom('order_items').select('order_id').where('offer_id', '=', offerId).execute();
    expect(orders).toHaveLength(10);
  });

  it('bounds list answers: GET /orders shows 10 vouchers per order and voucher_count; GET /orders/:id shows them all', async () => {
    const k = await h.key('distribution');
    const offerId = await seedOffer(h, subClient, { initial_quantity: 100 });
    const placed = (await order([{ offer_id: offerId, quantity: 25 }], {}, k)).json().order;
    expect(placed.vouchers).toHaveLength(25);
    expect(placed.voucher_count).toBe(25);
    const list = (await call('GET', '/orders?per_page=100', undefined, k)).json();
    expect(list.orders).toHaveLength(1);
    expect(list.orders[0].voucher_count).toBe(25);
    expect(list.orders[0].vouchers).toEqual(placed.vouchers.slice(0, 10));
    const one = (await call('GET', `/orders/${placed.id}`, undefined, k)).json().order;
    expect(one.vouchers).toEqual(placed.vouchers);
    const xml = await h.app.inject({ method: 'GET', url: `${DIST}/orders.xml`, headers: { 'x-service-api-key': k } });
    expect(xml.body.match(/<voucher>/g)).toHaveLength(10);
  });

  it('caps the units of one order at 500 in all (each unit is a voucher the answer carries)', async () => {
    const offers = await Promise.all([0, 1, 2, 3, 4, 5].map(() => seedOffer(h, subClient, { initial_quantity: 1000 })));
    const res = await order(offers.map((offer_id) => ({ offer_id, quantity: 100 })));
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'items', message: expect.stringMatching(/at most 500 units/) });
    expect(await stock(offers[0])).toBe(1000);
  });

  it('round-trips an order in XML', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 4 });
    const xml = `<?xml version="1.0"?><order><order_number>xml-1</order_number><customer_name>Alan Turing</customer_name><shipping_address><city>London</city><country_code>GB</country_code></shipping_address><items><item><offer_id>${offerId}</offer_id><quantity>2</quantity></item></items></order>`;
    const res = await h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      payload: xml,
      headers: { 'x-service-api-key': key, 'content-type': 'application/xml', accept: 'application/xml' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    expect(res.body).toContain(`<items><item><offer_id>${offerId}</offer_id><quantity>2</quantity></item></items>`);
    expect((res.body.match(/<voucher><id>/g) ?? []).length).toBe(2);
    expect(res.body).toMatch(/<order><id>ord_[^<]+<\/id><order_number>xml-1<\/order_number><status>active<\/status>/);
    expect(res.body).toContain('<shipping_address><city>London</city><country_code>GB</country_code></shipping_address>');
    const id = /<order><id>([^<]+)<\/id>/.exec(res.body)![1];
    const json = (await call('GET', `/orders/${id}`)).json().order;
    expect(json.items).toEqual([{ offer_id: offerId, quantity: 2 }]);
    const asXml = await h.app.inject({ method: 'GET', url: `${DIST}/orders/${id}.xml`, headers: { 'x-service-api-key': key } });
    expect(asXml.body).toContain(`<redemption_code>${json.vouchers[0].redemption_code}</redemption_code>`);
  });
});
