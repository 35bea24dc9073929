import { WithStartWorkflowOperation, WorkflowUpdateStage, type WorkflowHandle } from '@temporalio/client';
import type { OrderSnapshot } from '../../../domain/orders';
import {
  INTAKE_CLOSING,
  MAX_ORDERS_PER_UPDATE,
  ORDER_INTAKE_WORKFLOW_TYPE,
  placeOrderUpdate,
  type IntakeOrder,
  type OrderIntakeWorkflow,
  type PlacedAnswer,
  type PlaceOrderBatch,
} from '../../../workflows/order-intake-messages';
import { intakeBatchUpdateId, orderIntakeUpdateId, orderIntakeWorkflowId, orderWorkflowId } from '../../../workflows/shared/ids';
import { intakeLocation, placeThroughIntake, sendOrdersToIntake, sendToIntake } from '../../../services/order-intake';
import { loadConfig } from '../../../platform/config';
import { businessMetrics } from '../../../platform/metrics';
import { ActivityCalls, recordHistory, startWorkflowTestEnv, type WorkflowTestEnv } from '../../setup/workflow-env';

/*
 * The order-intake workflow (ORDER_INTAKE=sharded) with its batch activity replaced by a double:
 * orders that arrive together are placed by one activity call and each Update gets its own answer;
 * a refusal is an answer and the workflow keeps running; it continues as new past its bound and
 * later orders still answer; the same update id twice is placed once. Coalesced (the default), an
 * API process sends the orders it holds for a shard while an Update is in flight as one
 * `placeOrders` Update, each order answered with its own.
 */
describe('order-intake workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  let orders = 0;
  const order = (): IntakeOrder => {
    const n = ++orders;
    const orderNumber = `n-${n}`;
    return {
      workflowId: orderWorkflowId('cli_test', orderNumber),
      orderId: `ord_test${n}`,
      clientId: 'cli_test',
      orderNumber,
      accountId: null,
      applicationId: null,
      customerName: 'Ada Lovelace',
      shippingAddress: null,
      items: [{ offer_id: 'ofr_a', quantity: 1 }],
      requestId: `req-${n}`,
    };
  };
  const snapshot = (o: IntakeOrder): OrderSnapshot => ({
    id: o.orderId,
    order_number: o.orderNumber,
    status: 'active',
    account_id: null,
    application_id: null,
    customer_name: o.customerName,
    shipping_address: null,
    purchased_at: '2026-01-02T03:04:05.000Z',
    cancelled_at: null,
    items: o.items,
    vouchers: [],
    voucher_count: 0,
  });
  const placed = (o: IntakeOrder): PlacedAnswer => ({ ok: true, orderId: o.orderId, issued: 1, orderSnapshot: snapshot(o) });
  const updateId = (o: IntakeOrder) => orderIntakeUpdateId(o.clientId, o.orderNumber, o.requestId);

  let shards = 0;
  /** A fresh shard's workflow on this task queue, reached as the API does (Update-with-Start, USE_EXISTING). */
  const shard = (taskQueue: string, ordersPerRun = 100) => {
    const workflowId = `order-intake:${taskQueue}:${++shards}`;
    // As the API sends it: sent again while a closing run refuses it.
    const send = (o: IntakeOrder, id = updateId(o)) => sendToIntake(env.client, { workflowId, taskQueue, input: { ordersPerRun } }, o, id);
    /** Sent once, as a sender that does not retry would: a closing run's refusal is the answer. */
    const sendOnce = (o: IntakeOrder) => {
      const startWorkflowOperation = new WithStartWorkflowOperation<OrderIntakeWorkflow>(ORDER_INTAKE_WORKFLOW_TYPE, {
        workflowId,
        taskQueue,
        args: [{ ordersPerRun }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      return env.client.workflow.executeUpdateWithStart(placeOrderUpdate, { startWorkflowOperation, args: [o], updateId: updateId(o) });
    };
    const handle = (): WorkflowHandle<OrderIntakeWorkflow> => env.client.workflow.getHandle(workflowId);
    /** Several orders as one `placeOrders` Update, as a coalescing API process sends them. */
    const sendMany = (os: IntakeOrder[], id = intakeBatchUpdateId(`batch-${os[0].requestId}`)) =>
      sendOrdersToIntake(env.client, { workflowId, taskQueue, input: { ordersPerRun } }, os, id);
    /**
     * Starts the run before any order, with a short workflow task timeout: while a gated batch
     * waits, the workflow task that runs it completes only at its heartbeat (80% of that timeout),
     * and only then are the orders sent meanwhile delivered; the default 10 s made each wait 8 s.
     */
    const startQuick = () =>
      env.client.workflow.start<OrderIntakeWorkflow>(ORDER_INTAKE_WORKFLOW_TYPE, {
        workflowId,
        taskQueue,
        args: [{ ordersPerRun }],
        workflowTaskTimeout: '2s',
      });
    return { workflowId, send, sendOnce, sendMany, handle, startQuick };
  };

  /** A batch double answering each order placed, after `gate` (when given) opens. */
  const placingAll =
    (gate?: Promise<void>) =>
    async ({ orders: batch }: PlaceOrderBatch) => {
      await gate;
      return batch.map(placed);
    };

  /** The API's order intake on this task queue with one shard, coalescing or not, as services/orders.ts calls it. */
  const intakeService = (taskQueue: string, coalesce: boolean) => {
    const config = loadConfig({
      ...process.env,
      TEMPORAL_TASK_QUEUE: taskQueue,
      ORDER_INTAKE_SHARDS: '1',
      ORDER_INTAKE_COALESCE: String(coalesce),
    });
    return { config, deps: { temporal: env.client, config, metrics: businessMetrics } };
  };

  /** The Updates the one shard's workflow accepted, in its history's order. */
  const acceptedUpdates = async (taskQueue: string) => {
    const history = await env.client.workflow.getHandle(orderIntakeWorkflowId(taskQueue, 0)).fetchHistory();
    return (history.events ?? []).flatMap((ev) => ev.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest ?? []);
  };

  /**
   * Batch doubles answering each order placed, the first `gated` calls each only once its gate is
   * opened (`open(i)`): what queues behind a waiting batch is the next one.
   */
  const gatedBatches = (gated: number) => {
    const calls = new ActivityCalls();
    const gates = Array.from({ length: gated }, () => {
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      return { gate, open };
    });
    let call = 0;
    const doubles = calls.wrap({ placeOrderBatch: async (b: PlaceOrderBatch) => placingAll(gates[call++]?.gate)(b) });
    return { calls, doubles, open: (i = 0) => gates[i].open() };
  };

  it('places the orders that arrive together in one activity call and answers each Update with its own order', async () => {
    // The first call waits until the others have queued behind it.
    const { calls, doubles, open } = gatedBatches(1);
    await env.withWorker(doubles, async (taskQueue) => {
      const s = shard(taskQueue);
      await s.startQuick();
      const [a, b, c, d] = [order(), order(), order(), order()];
      const answerA = s.send(a);
      await calls.nth('placeOrderBatch', 1);
      // Accepted (queued by the handler) while the first batch is placing: the workflow task that
      // runs the local activity stays open until the SDK's task heartbeat (80% of its 10 s timeout),
      // which is what makes this test take seconds; real batches last milliseconds.
      const queued = await Promise.all(
        [b, c, d].map((o) =>
          s.handle().startUpdate(placeOrderUpdate, { args: [o], updateId: updateId(o), waitForStage: WorkflowUpdateStage.ACCEPTED }),
        ),
      );
      open();
      expect(await answerA).toEqual(placed(a));
      expect(await Promise.all(queued.map((u) => u.result()))).toEqual([b, c, d].map(placed));
      // The three arrived together (in any order among them): one call for all of them.
      const batches = calls.of('placeOrderBatch') as PlaceOrderBatch[];
      expect(batches.map((x) => x.orders.map((o) => o.orderId).sort())).toEqual([[a.orderId], [b, c, d].map((o) => o.orderId).sort()]);
    });
  });

  it('answers a refusal to its own order only, and keeps running (a refusal is not a failure)', async () => {
    const calls = new ActivityCalls();
    const refusal: PlacedAnswer = { ok: false, code: 'insufficient_stock', message: 'offer ofr_a has 0 unit(s) available', available: 0 };
    const [good, refused] = [order(), order()];
    const doubles = calls.wrap({
      placeOrderBatch: async ({ orders: batch }: PlaceOrderBatch) =>
        batch.map((o) => (o.requestId === refused.requestId ? refusal : placed(o))),
    });
    await env.withWorker(doubles, async (taskQueue) => {
      const s = shard(taskQueue);
      expect(await s.send(refused)).toEqual(refusal);
      expect(await s.send(good)).toEqual(placed(good));
      // The corrected retry of the refused number: a new request, a new update, placed this time.
      const retry = { ...refused, requestId: 'req-corrected' };
      expect(await s.send({ ...retry, items: [{ offer_id: 'ofr_b', quantity: 1 }] })).toEqual(
        placed({ ...retry, items: [{ offer_id: 'ofr_b', quantity: 1 }] }),
      );
      expect((await s.handle().describe()).status.name).toBe('RUNNING');
    });
  });

  it('continues as new past its bound, and orders sent after it still answer', async () => {
    const calls = new ActivityCalls();
    const refusal: PlacedAnswer = { ok: false, code: 'customer_limit_reached', message: 'the customer holds 1 voucher(s) of offer ofr_a' };
    const refused = order();
    const doubles = calls.wrap({
      placeOrderBatch: async ({ orders: batch }: PlaceOrderBatch) =>
        batch.map((o) => (o.requestId === refused.requestId ? refusal : placed(o))),
    });
    await env.withWorker(doubles, async (taskQueue) => {
      const s = shard(taskQueue, 2);
      expect(await s.send(refused)).toEqual(refusal);
      const firstRun = (await s.handle().describe()).runId;
      const sent = [order(), order(), order(), order()];
      for (const o of sent) expect(await s.send(o)).toEqual(placed(o));
      // The first run, whole: a refusal answered, an order placed, continued as new (a replay test's history).
      await recordHistory(env.client.workflow.getHandle(s.workflowId, firstRun), 'order-intake-continued-as-new');
      const now = await s.handle().describe();
      expect(now.status.name).toBe('RUNNING');
      expect(now.runId).not.toBe(firstRun);
      // Every order placed once, none lost at a run's end.
      expect(calls.of('placeOrderBatch').flatMap((b) => (b as PlaceOrderBatch).orders.map((o) => o.orderId))).toHaveLength(5);
      const runs = [];
      for await (const w of env.client.workflow.list({ query: `WorkflowId = '${s.workflowId}'` })) runs.push(w.status.name);
      expect(runs).not.toContain('FAILED');
    });
  });

  it('answers every one of many concurrent orders with its own order across several continue-as-new', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(calls.wrap({ placeOrderBatch: placingAll() }), async (taskQueue) => {
      const s = shard(taskQueue, 2);
      const sent = Array.from({ length: 12 }, order);
      expect(await Promise.all(sent.map((o) => s.send(o)))).toEqual(sent.map(placed));
      // Every order reached placing. A local activity is at least once: a workflow task that ends
      // the run while new updates arrive is rejected and replayed, and its batch placed again;
      // there the database answers the same request's order without writing it twice (test/api).
      const placedIds = calls.of('placeOrderBatch').flatMap((b) => (b as PlaceOrderBatch).orders.map((o) => o.orderId));
      expect([...new Set(placedIds)].sort()).toEqual(sent.map((o) => o.orderId).sort());
    });
  });

  it('refuses new orders while a run closes, so it drains under continuous load, and the refused order is placed by the next run', async () => {
    // The first two batches wait for their gate: the run is closing while the second places.
    const { calls, doubles, open } = gatedBatches(2);
    await env.withWorker(doubles, async (taskQueue) => {
      const s = shard(taskQueue, 1);
      await s.startQuick();
      const [a, b, c] = [order(), order(), order()];
      const answerA = s.send(a);
      await calls.nth('placeOrderBatch', 1);
      const answerB = s.send(b); // queued behind the first batch, taken before the run closes
      await s.handle().startUpdate(placeOrderUpdate, { args: [b], updateId: updateId(b), waitForStage: WorkflowUpdateStage.ACCEPTED });
      open(0);
      expect(await answerA).toEqual(placed(a));
      await calls.nth('placeOrderBatch', 2);
      const firstRun = (await s.handle().describe()).runId;
      // One order taken: the run is closing while B places, and refuses C before recording it.
      await expect(s.sendOnce(c)).rejects.toMatchObject({ cause: { type: INTAKE_CLOSING } });
      const answerC = s.send(c);
      open(1);
      expect(await answerB).toEqual(placed(b));
      expect(await answerC).toEqual(placed(c));
      expect((await s.handle().describe()).runId).not.toBe(firstRun);
      const placedIds = calls.of('placeOrderBatch').flatMap((x) => (x as PlaceOrderBatch).orders.map((o) => o.orderId));
      expect(placedIds).toEqual([a, b, c].map((o) => o.orderId));
    });
  });

  it('places an update id sent twice once, and answers both calls the same', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(calls.wrap({ placeOrderBatch: placingAll() }), async (taskQueue) => {
      const s = shard(taskQueue);
      const o = order();
      expect(await s.send(o)).toEqual(placed(o));
      expect(await s.send(o)).toEqual(placed(o));
      expect(calls.of('placeOrderBatch')).toEqual([{ orders: [o] }]);
    });
  });

  it('answers a placeOrders Update with each order in the order sent, a refusal only to its own order, in one activity call', async () => {
    const calls = new ActivityCalls();
    const refusal: PlacedAnswer = { ok: false, code: 'insufficient_stock', message: 'offer ofr_a has 0 unit(s) available', available: 0 };
    const [a, refused, b] = [order(), order(), order()];
    const doubles = calls.wrap({
      placeOrderBatch: async ({ orders: batch }: PlaceOrderBatch) =>
        batch.map((o) => (o.requestId === refused.requestId ? refusal : placed(o))),
    });
    await env.withWorker(doubles, async (taskQueue) => {
      const s = shard(taskQueue);
      expect(await s.sendMany([a, refused, b])).toEqual([placed(a), refusal, placed(b)]);
      expect(calls.of('placeOrderBatch')).toEqual([{ orders: [a, refused, b] }]);
      // An old sender's single order still answers beside it (both handlers registered).
      const c = order();
      expect(await s.send(c)).toEqual(placed(c));
      // More orders than one batch carries are refused at the validator, before anything is recorded.
      const tooMany = Array.from({ length: MAX_ORDERS_PER_UPDATE + 1 }, order);
      await expect(s.sendMany(tooMany)).rejects.toMatchObject({ cause: { message: expect.stringMatching(/1 to 20 orders/) } });
      expect(calls.of('placeOrderBatch')).toHaveLength(2);
      expect((await s.handle().describe()).status.name).toBe('RUNNING');
    });
  });

  it('coalesces: the orders for a shard that arrive while its Update is in flight go together as one Update when it answers', async () => {
    const { calls, doubles, open } = gatedBatches(1);
    await env.withWorker(doubles, async (taskQueue) => {
      const { config, deps } = intakeService(taskQueue, true);
      const [a, b, c, d, e] = Array.from({ length: 5 }, order).map(({ requestId: _, ...o }) => o);
      const answerA = placeThroughIntake(deps, a);
      await calls.nth('placeOrderBatch', 1);
      // Held in this process while A's Update is in flight: nothing of theirs reaches the workflow.
      const rest = [b, c, d, e].map((o) => placeThroughIntake(deps, o));
      open();
      const answers = await Promise.all([answerA, ...rest]);
      const batches = (calls.of('placeOrderBatch') as PlaceOrderBatch[]).map((x) => x.orders);
      expect(batches.map((x) => x.map((o) => o.orderId))).toEqual([[a.orderId], [b, c, d, e].map((o) => o.orderId)]);
      // Each answered with its own order; each order with a request id of its own, naming its Update.
      expect(answers).toEqual(batches.flat().map(placed));
      const requestIds = batches.flat().map((o) => o.requestId);
      expect(new Set(requestIds).size).toBe(5);
      const [batchA, batchRest] = batches.map((x) => x.map((o) => intakeLocation(config, o.clientId, o.orderNumber, o.requestId).updateId));
      expect(new Set(batchRest).size).toBe(1);
      expect(batchA[0]).not.toBe(batchRest[0]);
      const accepted = await acceptedUpdates(taskQueue);
      expect(accepted.map((r) => r.meta?.updateId)).toEqual([batchA[0], batchRest[0]]);
    });
  });

  it('with ORDER_INTAKE_COALESCE=false sends each order as its own placeOrder Update, under its own update id', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(calls.wrap({ placeOrderBatch: placingAll() }), async (taskQueue) => {
      const { config, deps } = intakeService(taskQueue, false);
      const sent = Array.from({ length: 3 }, order).map(({ requestId: _, ...o }) => o);
      await Promise.all(sent.map((o) => placeThroughIntake(deps, o)));
      const placedOrders = (calls.of('placeOrderBatch') as PlaceOrderBatch[]).flatMap((x) => x.orders);
      const updateIds = placedOrders.map((o) => intakeLocation(config, o.clientId, o.orderNumber, o.requestId).updateId);
      expect(updateIds.sort()).toEqual(placedOrders.map((o) => orderIntakeUpdateId(o.clientId, o.orderNumber, o.requestId)).sort());
      const accepted = await acceptedUpdates(taskQueue);
      expect(accepted.map((r) => r.input?.name)).toEqual(['placeOrder', 'placeOrder', 'placeOrder']);
      expect(accepted.map((r) => r.meta?.updateId).sort()).toEqual(updateIds.sort());
    });
  });
});
