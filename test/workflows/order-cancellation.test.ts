import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { resolveEndpoints } from '../../platform/endpoints';
import { cancelOrderUpdate } from '../../workflows/order-fulfilment-messages';
import { orderCancellationWorkflowId, orderWorkflowId } from '../../workflows/shared/ids';
import { eventually } from '../setup/eventually';
import { seedOffer } from '../setup/fixtures';
import { createHarness, type Harness } from '../setup/harness';

/*
 * Orders end their workflow once placed, and cancelling is a workflow of its own, so an order can
 * be cancelled at any age. Orders placed before that change have a workflow still open (400 days)
 * for the old `cancel` update: they must be cancellable too, and their live history must replay on
 * today's code.
 */
describe('order cancellation at any age', () => {
  let h: Harness;
  let key: string;
  let distClient: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => {
    // The per-order design's workflows (ORDER_INTAKE=sharded, the default, starts none per order).
    h = await createHarness({ env: { ORDER_INTAKE: 'per-order' } });
    ({ key, clientId: distClient } = await h.client('distribution'));
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

  it('cancels an order placed under the old workflow, whose open history replays on the new code', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 5 });
    // Place the order with the workflow code as it was: a worker of its own on this file's queue.
    const connection = await NativeConnection.connect({ address: resolveEndpoints(h.config).temporalAddress });
    const oldWorker = await Worker.create({
      connection,
      namespace: h.config.TEMPORAL_NAMESPACE,
      taskQueue: h.config.TEMPORAL_TASK_QUEUE,
      workflowsPath: path.join(__dirname, 'fixtures', 'order-fulfilment-before-cancellation-workflow.ts'),
      activities: createActivities(h.services),
    });
    const placed = await oldWorker.runUntil(place('old-1', offerId, 2));
    await connection.close();
    expect(placed.statusCode).toBe(200);
    const order = placed.json().order;
    const orderWorkflow = orderWorkflowId(distClient, 'old-1');
    expect((await describeWorkflow(orderWorkflow)).status.name).toBe('RUNNING');

    // Today's worker; the order is cancelled through the new workflow, at its old workflow's side.
    await h.startWorker();
    const cancelled = await dist('PUT', `/orders/${order.id}`, { order: { status: 'cancelled' } });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().order.status).toBe('cancelled');
    expect(await stock(offerId)).toBe(5);

    // The old workflow's history, recorded by the old code, replays on today's workflows…
    const history = await h.services.temporal.workflow.getHandle(orderWorkflow).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.WORKFLOW_BUNDLE_PATH! } }, history, orderWorkflow);
    // …and the open workflow still takes its old update on today's worker, which then ends it.
    const late = await h.services.temporal.workflow.getHandle(orderWorkflow).executeUpdate(cancelOrderUpdate);
    expect(late).toEqual({ ok: true, cancelledVouchers: 0 });
    expect(await h.services.temporal.workflow.getHandle(orderWorkflow).result()).toMatchObject({ status: 'cancelled' });
    expect(await stock(offerId)).toBe(5);
  }, 180_000);

  it('a new order workflow completes once placed; cancelling keeps a redeemed voucher and returns the others', async () => {
    if (!h.worker) await h.startWorker();
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 5 });
    const order = (await place('new-1', offerId, 3)).json().order;
    expect(await stock(offerId)).toBe(2);
    // The answer comes as placing commits (with eager start, before the workflow's last task): the
    // workflow completes right after, with no timer left running.
    const ended = await eventually(
      'the order workflow to end',
      async () => {
        const status = (await describeWorkflow(orderWorkflowId(distClient, 'new-1'))).status.name;
        return status !== 'RUNNING' && status;
      },
      { timeoutMs: 5_000, intervalMs: 100 },
    );
    expect(ended).toBe('COMPLETED');

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
    if (!h.worker) await h.startWorker();
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 4 });
    const order = (await place('new-2', offerId, 4)).json().order;
    expect(await stock(offerId)).toBe(0);
    const answers = await Promise.all([1, 2, 3, 4].map(() => dist('PUT', `/orders/${order.id}`, { order: { status: 'cancelled' } })));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    for (const r of answers) expect(r.json().order.status).toBe('cancelled');
    expect(await stock(offerId)).toBe(4);
  });
});
