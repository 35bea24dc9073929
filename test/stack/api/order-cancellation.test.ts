import { orderCancellationWorkflowId } from '../../../workflows/shared/ids';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';

/*
 * Cancelling is a workflow of its own, apart from placing (the order intake), so an order can be
 * cancelled at any age: redeemed vouchers stay, the others return their units, once.
 */
describe('order cancellation at any age', () => {
  let h: Harness;
  let key: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    key = await h.key('distribution');
    sub = await h.client('submission');
  });
  afterAll(() => h.close());

  const dist = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    h.app.inject({ method, url: `/distribution/beta${url}`, headers: { 'x-service-api-key': key }, ...(payload ? { payload } : {}) });
  const place = (orderNumber: string, offerId: string, quantity: number) =>
    dist('POST', '/orders', {
      order: { order_number: orderNumber, customer_name: 'Grace Hopper', items: [{ offer_id: offerId, quantity }] },
    });
  const stock = async (offerId: string) =>
    (await h.services.db.selectFrom('offers').select('quantity_in_stock').where('id', '=', offerId).executeTakeFirstOrThrow())
      .quantity_in_stock;
  const describeWorkflow = (workflowId: string) => h.services.temporal.workflow.getHandle(workflowId).describe();

  it('cancelling keeps a redeemed voucher and returns the others, once however often it is asked', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 5 });
    const order = (await place('new-1', offerId, 3)).json().order;
    expect(await stock(offerId)).toBe(2);
    const redeemed = await h.app.inject({
      method: 'PUT',
      url: `/submission/beta/offers/${offerId}/vouchers/${order.vouchers[0].id}`,
      headers: { 'x-service-api-key': sub.key },
      payload: { voucher: { status: 'redeemed' } },
    });
    expect(redeemed.statusCode).toBe(200);

    const res = await dist('PUT', `/orders/${order.id}`, { order: { status: 'cancelled' } });
    expect(res.statusCode).toBe(200);
    const after = res.json().order;
    expect(after.status).toBe('cancelled');
    const statusOf = Object.fromEntries(after.vouchers.map((v: { id: string; status: string }) => [v.id, v.status]));
    expect(statusOf[order.vouchers[0].id]).toBe('redeemed');
    expect(Object.values(statusOf).sort()).toEqual(['cancelled', 'cancelled', 'redeemed']);
    expect(await stock(offerId)).toBe(4); // the two unused units are back; the redeemed one was used
    expect((await describeWorkflow(orderCancellationWorkflowId(order.id))).status.name).toBe('COMPLETED');

    // Again, and twice at once: the same cancelled order, nothing returned twice.
    const again = await Promise.all([1, 2, 3].map(() => dist('PUT', `/orders/${order.id}`, { order: { status: 'cancelled' } })));
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
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 4 });
    const order = (await place('new-2', offerId, 4)).json().order;
    expect(await stock(offerId)).toBe(0);
    const answers = await Promise.all([1, 2, 3, 4].map(() => dist('PUT', `/orders/${order.id}`, { order: { status: 'cancelled' } })));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    for (const r of answers) expect(r.json().order.status).toBe('cancelled');
    expect(await stock(offerId)).toBe(4);
  });
});
