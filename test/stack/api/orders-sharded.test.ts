import { orderKey, type PlaceOrderInput } from '../../../domain/orders';
import { findOrderForOperator } from '../../../services/orders';
import { intakeOutbox } from '../../../services/order-intake';
import { eventually } from '../../setup/eventually';
import { createOrderActivities } from '../../../activities/orders';
import { orderIntakeShard, orderIntakeWorkflowId } from '../../../workflows/shared/ids';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

/*
 * Orders through the order intake on the real stack: vouchers, 409 duplicate with order_id, a
 * refusal that frees its number, stock never oversold, refusals never Failed workflows; and the
 * placing transaction's request id, which tells a request's own retry from a duplicate. Orders for
 * a shard (by their first offer) that arrive while its Update is in flight go together as its next
 * Update.
 */
describe('orders through the sharded intake workflows', () => {
  let h: Harness;
  let key: string;
  let distClient: string;
  let subClient: string;
  beforeAll(async () => {
    h = await createHarness({
      worker: true,
      env: { ORDER_INTAKE_SHARDS: '4' },
      fixed: { ORDER_INTAKE_ORDERS_PER_RUN: 3 },
    });
    ({ key, clientId: distClient } = await h.client('distribution'));
    subClient = (await h.client('submission')).clientId;
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    h.app.inject({
      method,
      url: `${DIST}${url}`,
      headers: { 'x-service-api-key': key },
      ...(payload ? { payload: payload as object } : {}),
    });
  const post = (order: Record<string, unknown>) => call('POST', '/orders', { order: { customer_name: 'Ada Lovelace', ...order } });
  const stock = async (offerId: string) =>
    (await h.services.db.selectFrom('offers').select('quantity_in_stock').where('id', '=', offerId).executeTakeFirstOrThrow())
      .quantity_in_stock;
  /** An offer whose orders go to `shard`: seeded again until its id hashes there (four tries on average). */
  const offerOnShard = async (shard: number, quantity: number): Promise<string> => {
    for (;;) {
      const id = await seedOffer(h, subClient, { initial_quantity: quantity });
      if (orderIntakeShard([id], 4) === shard) return id;
    }
  };
  const failedWorkflows = async () => {
    const failed: string[] = [];
    const query = `TaskQueue = '${h.config.TEMPORAL_TASK_QUEUE}' AND ExecutionStatus = 'Failed'`;
    for await (const w of h.services.temporal.workflow.list({ query })) failed.push(w.workflowId);
    return failed;
  };

  it('answers the order with its vouchers, and the same order_number again with 409 duplicate and its id', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 10 });
    const order = { order_number: 'sh-dup-1', items: [{ offer_id: offerId, quantity: 2 }] };
    const first = await post(order);
    expect(first.statusCode).toBe(200);
    const placed = first.json().order;
    expect(placed).toMatchObject({ status: 'active', order_number: 'sh-dup-1', items: [{ offer_id: offerId, quantity: 2 }] });
    expect(placed.vouchers).toHaveLength(2);
    expect(new Set(placed.vouchers.map((v: { redemption_code: string }) => v.redemption_code)).size).toBe(2);
    expect((await call('GET', `/orders/${placed.id}`)).json().order).toEqual(placed);
    const again = await post(order);
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0]).toMatchObject({ code: 'duplicate', field: 'order_number', order_id: placed.id });
    expect(await stock(offerId)).toBe(8);
    // An operator finds where it was handled.
    const found = await findOrderForOperator(h.services, placed.id, '');
    expect(found).toMatchObject({
      intake_workflow_id: expect.stringMatching(new RegExp(`^order-intake:${h.config.TEMPORAL_TASK_QUEUE}:[0-3]$`)),
      // The Update that carried it: its batch's.
      intake_update_id: expect.stringMatching(/^orders:[0-9a-f-]{36}$/),
    });
    const history = JSON.stringify(await h.services.temporal.workflow.getHandle(found!.intake_workflow_id!).fetchHistory());
    expect(history).toContain(found!.intake_update_id!);
  });

  it('coalesces the orders held while a shard is busy into one Update: each placed once, a duplicate order_number in it refused 409, a refusal taking nothing from the others', async () => {
    // Every order on one shard: the shard of its offer, so three offers of one shard.
    const offerId = await seedOffer(h, subClient, { initial_quantity: 10 });
    const shard = orderIntakeShard([offerId], 4);
    const [leadOffer, scarce] = [await offerOnShard(shard, 5), await offerOnShard(shard, 1)];
    const workflowId = orderIntakeWorkflowId(h.config.TEMPORAL_TASK_QUEUE, shard);
    const [lead, a, b, refusedNumber, c] = ['sh-co-lead', 'sh-co-a', 'sh-co-b', 'sh-co-refused', 'sh-co-c'];
    // The first order's placing waits on its offer's row lock, held here: its Update stays in flight.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holding = h.services.db.transaction().execute(async (trx) => {
      await trx.selectFrom('offers').select('id').where('id', '=', leadOffer).forUpdate().execute();
      locked();
      await released;
    });
    await lockTaken;
    const leader = post({ order_number: lead, items: [{ offer_id: leadOffer, quantity: 1 }] });
    await eventually('the first order in flight', () => intakeOutbox(h.services.temporal, workflowId).inFlight === 1);
    const held = [
      post({ order_number: a, items: [{ offer_id: offerId, quantity: 1 }] }),
      post({ order_number: 'sh-co-dup', items: [{ offer_id: offerId, quantity: 1 }] }),
      post({ order_number: b, items: [{ offer_id: offerId, quantity: 2 }] }),
      post({ order_number: refusedNumber, items: [{ offer_id: scarce, quantity: 5 }] }),
      post({ order_number: 'sh-co-dup', items: [{ offer_id: offerId, quantity: 1 }] }),
      post({ order_number: c, items: [{ offer_id: offerId, quantity: 1 }] }),
    ];
    await eventually('six orders held', () => intakeOutbox(h.services.temporal, workflowId).held === 6);
    release();
    await holding;
    expect((await leader).statusCode).toBe(200);
    const [ra, dup1, rb, refused, dup2, rc] = await Promise.all(held);
    for (const [r, n] of [
      [ra, 1],
      [rb, 2],
      [rc, 1],
    ] as const) {
      expect(r.statusCode).toBe(200);
      expect(r.json().order.vouchers).toHaveLength(n);
    }
    expect(refused.statusCode).toBe(409);
    expect(refused.json().errors[0]).toMatchObject({ code: 'insufficient_stock', offer_id: scarce, available: 1 });
    // One of the two with the same order_number is placed, the other is its duplicate.
    const [placedDup, duplicate] = dup1.statusCode === 200 ? [dup1, dup2] : [dup2, dup1];
    expect(placedDup.statusCode).toBe(200);
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().errors[0]).toMatchObject({ code: 'duplicate', field: 'order_number', order_id: placedDup.json().order.id });
    // Each exactly once: the stock taken and the vouchers issued are the placed orders' (1 + 1 + 2 + 1).
    expect(await stock(offerId)).toBe(5);
    expect(await stock(scarce)).toBe(1);
    const vouchers = await h.services.db.selectFrom('vouchers').select('order_id').where('offer_id', '=', offerId).execute();
    expect(vouchers).toHaveLength(5);
    // The six went as one Update: the placed ones' request ids name one batch, found by the operator's lookup.
    const ids = [ra, rb, rc, placedDup].map((r) => r.json().order.id as string);
    const found = await Promise.all(ids.map((id) => findOrderForOperator(h.services, id, '')));
    const updates = new Set(found.map((f) => f!.intake_update_id));
    expect(updates.size).toBe(1);
    const updateId = found[0]!.intake_update_id!;
    expect(updateId).toMatch(/^orders:[0-9a-f-]{36}$/);
    expect(found[0]!.intake_workflow_id).toBe(workflowId);
    // In the history of one of the shard's runs (the one that took it may have continued as new since).
    const histories: string[] = [];
    for await (const run of h.services.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      histories.push(JSON.stringify(await h.services.temporal.workflow.getHandle(workflowId, run.runId).fetchHistory()));
    expect(histories.filter((x) => x.includes(updateId))).toHaveLength(1);
    expect(await failedWorkflows()).toEqual([]);
  });

  it('refuses an order beyond the stock with its 409, frees its number for the corrected retry, and fails no workflow', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 3 });
    const refused = await post({ order_number: 'sh-refused-1', items: [{ offer_id: offerId, quantity: 5 }] });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().errors[0]).toMatchObject({ code: 'insufficient_stock', offer_id: offerId, available: 3 });
    expect(await stock(offerId)).toBe(3);
    const corrected = await post({ order_number: 'sh-refused-1', items: [{ offer_id: offerId, quantity: 3 }] });
    expect(corrected.statusCode).toBe(200);
    expect(corrected.json().order.vouchers).toHaveLength(3);
    expect(await stock(offerId)).toBe(0);
    // The refusal was an answer: the intake workflow that gave it is running, and nothing failed.
    const { intake_workflow_id } = (await findOrderForOperator(h.services, corrected.json().order.id, ''))!;
    expect((await h.services.temporal.workflow.getHandle(intake_workflow_id!).describe()).status.name).toBe('RUNNING');
    expect(await failedWorkflows()).toEqual([]);
  });

  it('20 concurrent orders of 1 against a stock of 10 place exactly 10, across shards whose runs continue as new every 3 orders', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 10 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post({ order_number: `sh-c-${i}`, items: [{ offer_id: offerId, quantity: 1 }] })),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(10);
    expect(codes.filter((c) => c === 409)).toHaveLength(10);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().errors[0].code).toBe('insufficient_stock');
    expect(await stock(offerId)).toBe(0);
    const vouchers = await h.services.db.selectFrom('vouchers').select('order_id').where('offer_id', '=', offerId).execute();
    expect(vouchers).toHaveLength(10);
    expect(new Set(vouchers.map((v) => v.order_id)).size).toBe(10);
    expect(await failedWorkflows()).toEqual([]);
  });

  it('places one order_number sent at once with the offers of two shards once: the other request is its duplicate, nothing taken twice', async () => {
    const first = await seedOffer(h, subClient, { initial_quantity: 5 });
    let second = await seedOffer(h, subClient, { initial_quantity: 5 });
    while (orderIntakeShard([second], 4) === orderIntakeShard([first], 4)) second = await seedOffer(h, subClient, { initial_quantity: 5 });
    const [one, other] = await Promise.all([
      post({ order_number: 'sh-two-shards', items: [{ offer_id: first, quantity: 2 }] }),
      post({ order_number: 'sh-two-shards', items: [{ offer_id: second, quantity: 3 }] }),
    ]);
    const [placed, duplicate] = one.statusCode === 200 ? [one, other] : [other, one];
    expect(placed.statusCode).toBe(200);
    expect(duplicate.statusCode).toBe(409);
    const order = placed.json().order;
    expect(duplicate.json().errors[0]).toMatchObject({ code: 'duplicate', field: 'order_number', order_id: order.id });
    // Only the placed order's offer gave its units, once.
    const left = [await stock(first), await stock(second)];
    expect(left).toEqual(order.items[0].offer_id === first ? [3, 5] : [5, 2]);
    expect(await failedWorkflows()).toEqual([]);
  });

  it('places a batch in one transaction: a refusal takes nothing from the others, and the batch run again writes nothing twice', async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 3 });
    const { placeOrderBatch } = createOrderActivities({ db: h.services.db, config: h.config, metrics: h.services.metrics });
    const intakeOrder = (n: string, quantity: number) => ({
      orderKey: orderKey(distClient, n),
      orderId: `ord_bt_${Math.random().toString(36).slice(2)}`,
      clientId: distClient,
      orderNumber: n,
      accountId: null,
      applicationId: null,
      customerName: 'Ada',
      shippingAddress: null,
      items: [{ offer_id: offerId, quantity }],
      requestId: `req-${n}`,
    });
    const orders = [intakeOrder('sh-bt-1', 1), intakeOrder('sh-bt-2', 5), intakeOrder('sh-bt-3', 2)];
    const answers = await placeOrderBatch({ orders });
    expect(answers.map((a) => (a.ok ? a.issued : a.code))).toEqual([1, 'insufficient_stock', 2]);
    expect(await stock(offerId)).toBe(0);
    // A worker crash or a replayed workflow task runs the same batch again.
    const again = await placeOrderBatch({ orders });
    expect(again.map((a) => (a.ok ? a.issued : a.code))).toEqual([0, 'insufficient_stock', 0]);
    expect(again[0].ok && 'orderSnapshot' in again[0] && again[0].orderSnapshot.vouchers.map((v) => v.id)).toEqual(
      answers[0].ok && 'orderSnapshot' in answers[0] && answers[0].orderSnapshot.vouchers.map((v) => v.id),
    );
    const vouchers = await h.services.db.selectFrom('vouchers').select('id').where('offer_id', '=', offerId).execute();
    expect(vouchers).toHaveLength(3);
  });

  it("places once per request: the same request's retry is answered its order, another request is a duplicate", async () => {
    const offerId = await seedOffer(h, subClient, { initial_quantity: 5 });
    const o: PlaceOrderInput = {
      orderKey: orderKey(distClient, 'sh-rq-1'),
      orderId: `ord_rq_${Math.random().toString(36).slice(2)}`,
      clientId: distClient,
      orderNumber: 'sh-rq-1',
      accountId: null,
      applicationId: null,
      customerName: 'Ada',
      shippingAddress: null,
      items: [{ offer_id: offerId, quantity: 2 }],
      requestId: 'req-a',
    };
    const { placeOrderBatch } = createOrderActivities({ db: h.services.db, config: h.config, metrics: h.services.metrics });
    const place = async (order: PlaceOrderInput) => (await placeOrderBatch({ orders: [{ ...order, requestId: order.requestId! }] }))[0];
    const voucherIds = (a: Awaited<ReturnType<typeof place>>) => a.ok && 'orderSnapshot' in a && a.orderSnapshot.vouchers.map((v) => v.id);
    const placed = await place(o);
    expect(placed).toMatchObject({ ok: true, issued: 2 });
    // A batch re-run (worker crash, a replayed workflow task): the same request, nothing written twice.
    const retried = await place(o);
    expect(retried).toMatchObject({ ok: true, issued: 0 });
    expect(voucherIds(retried)).toEqual(voucherIds(placed));
    // Another request for the same order_number (an order placed before issue 32 has no request id).
    const duplicate = { ok: false, code: 'duplicate', field: 'order_number', order_id: o.orderId };
    expect(await place({ ...o, requestId: 'req-b' })).toMatchObject(duplicate);
    const [unnamed] = await placeOrderBatch({ orders: [{ ...o, requestId: undefined as unknown as string }] });
    expect(unnamed).toMatchObject(duplicate);
    expect(await stock(offerId)).toBe(3);
  });
});
