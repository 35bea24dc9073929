import {
  ApplicationFailure,
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type WorkflowHandle,
} from '@temporalio/client';
import { orderKey, type OrderSnapshot } from '../../domain/orders';
import {
  INTAKE_CLOSING,
  MAX_ORDERS_PER_UPDATE,
  ORDER_INTAKE_WORKFLOW_TYPE,
  placeOrdersUpdate,
  SERVER_UPDATE_NOT_SEEN_THROUGH,
  type IntakeOrder,
  type OrderIntakeWorkflow,
  type PlacedAnswer,
  type PlaceOrderBatch,
} from '../../workflows/order-intake-messages';
import { intakeBatchUpdateId, orderIntakeWorkflowId } from '../../workflows/shared/ids';
import { intakeLocation, placeThroughIntake, sendOrdersToIntake, toSendAgain } from '../../services/order-intake';
import { loadConfig } from '../../platform/config';
import { businessMetrics } from '../../platform/metrics';
import { eventually } from '../setup/eventually';
import { ActivityCalls, recordHistory, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The order-intake workflow with its batch activity replaced by a double: orders that arrive
 * together are placed by one activity call and each gets its own answer; a refusal is an answer and
 * the workflow keeps running; it continues as new past its bound and later orders still answer; the
 * same update id twice is placed once; an Update refused by a closing run, or failed by the server
 * because its run ended, is sent again (decided by the failure's type). An API process sends the
 * orders it holds for a shard while an Update is in flight as its next `placeOrders` Update, each
 * order answered with its own.
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
      orderKey: orderKey('cli_test', orderNumber),
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
  /** The update id of a `placeOrders` Update carrying this one order. */
  const updateId = (o: IntakeOrder) => intakeBatchUpdateId(`one-${o.requestId}`);

  let shards = 0;
  /** A fresh shard's workflow on this task queue, reached as the API does (Update-with-Start, USE_EXISTING). */
  const shard = (taskQueue: string, ordersPerRun = 100) => {
    const workflowId = `order-intake:${taskQueue}:${++shards}`;
    const target = { workflowId, taskQueue, input: { ordersPerRun } };
    /** One order in its own Update, as the API sends it: sent again while a closing run refuses it. */
    const send = async (o: IntakeOrder, id = updateId(o)) => (await sendOrdersToIntake(env.client, target, [o], id))[0];
    /** Sent once, as a sender that does not retry would: a closing run's refusal is the answer. */
    const sendOnce = (o: IntakeOrder) => {
      const startWorkflowOperation = new WithStartWorkflowOperation<OrderIntakeWorkflow>(ORDER_INTAKE_WORKFLOW_TYPE, {
        workflowId,
        taskQueue,
        args: [{ ordersPerRun }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      return env.client.workflow.executeUpdateWithStart(placeOrdersUpdate, { startWorkflowOperation, args: [[o]], updateId: updateId(o) });
    };
    const handle = (): WorkflowHandle<OrderIntakeWorkflow> => env.client.workflow.getHandle(workflowId);
    /** Several orders as one `placeOrders` Update, as a coalescing API process sends them. */
    const sendMany = (os: IntakeOrder[], id = intakeBatchUpdateId(`batch-${os[0].requestId}`)) =>
      sendOrdersToIntake(env.client, target, os, id);
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

  /** The API's order intake on this task queue with one shard, as services/orders.ts calls it. */
  const intakeService = (taskQueue: string) => {
    const config = loadConfig({ ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, ORDER_INTAKE_SHARDS: '1' });
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
          s.handle().startUpdate(placeOrdersUpdate, { args: [[o]], updateId: updateId(o), waitForStage: WorkflowUpdateStage.ACCEPTED }),
        ),
      );
      open();
      expect(await answerA).toEqual(placed(a));
      expect(await Promise.all(queued.map((u) => u.result()))).toEqual([b, c, d].map((o) => [placed(o)]));
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
      // there the database answers the same request's order without writing it twice (test/stack/api).
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
      await s.handle().startUpdate(placeOrdersUpdate, { args: [[b]], updateId: updateId(b), waitForStage: WorkflowUpdateStage.ACCEPTED });
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
      // More orders than one batch carries are refused at the validator, before anything is recorded.
      const tooMany = Array.from({ length: MAX_ORDERS_PER_UPDATE + 1 }, order);
      await expect(s.sendMany(tooMany)).rejects.toMatchObject({ cause: { message: expect.stringMatching(/1 to 20 orders/) } });
      expect(calls.of('placeOrderBatch')).toHaveLength(1);
      expect((await s.handle().describe()).status.name).toBe('RUNNING');
    });
  });

  it('coalesces: the orders for a shard that arrive while its Update is in flight go together as one Update when it answers', async () => {
    const { calls, doubles, open } = gatedBatches(1);
    await env.withWorker(doubles, async (taskQueue) => {
      const { config, deps } = intakeService(taskQueue);
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
      const [batchA, batchRest] = batches.map((x) => x.map((o) => intakeLocation(config, o.items, o.requestId).updateId));
      expect(new Set(batchRest).size).toBe(1);
      expect(batchA[0]).not.toBe(batchRest[0]);
      const accepted = await acceptedUpdates(taskQueue);
      expect(accepted.map((r) => r.meta?.updateId)).toEqual([batchA[0], batchRest[0]]);
    });
  });

  it('sends an Update again when the server fails it because its run ended before answering (AcceptedUpdateCompletedWorkflow): the next run places it', async () => {
    const { calls, doubles, open } = gatedBatches(1);
    await env.withWorker(doubles, async (taskQueue) => {
      const s = shard(taskQueue);
      await s.startQuick();
      const firstRunId = (await s.handle().describe()).runId;
      const firstRun = env.client.workflow.getHandle(s.workflowId, firstRunId);
      const a = order();
      const answerA = s.send(a);
      // Accepted (in the history), its batch placing (held): the run ends now, with the Update unanswered.
      await calls.nth('placeOrderBatch', 1);
      await eventually('the Update accepted', async () =>
        (await firstRun.fetchHistory()).events!.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes),
      );
      await firstRun.terminate('a run that ends before answering');
      // The held batch is let go either way, so that a failure here does not hold the worker's shutdown.
      const answered = await answerA.finally(() => open());
      expect(answered).toEqual(placed(a));
      expect((await s.handle().describe()).runId).not.toBe(firstRunId);
      expect(calls.of('placeOrderBatch')).toEqual([{ orders: [a] }, { orders: [a] }]);
    });
  });

  it('decides a resend by the failure type, never by its text', () => {
    const failed = (cause: Error) => new WorkflowUpdateFailedError('Workflow Update failed', cause);
    for (const type of [INTAKE_CLOSING, ...SERVER_UPDATE_NOT_SEEN_THROUGH])
      expect(toSendAgain(failed(ApplicationFailure.create({ type, message: 'any text', nonRetryable: true })))).toBe(true);
    // The server's text without its type, a refusal, a plain error: answered as they are.
    const text = 'Workflow Update failed because the Workflow completed before the Update completed.';
    expect(toSendAgain(failed(ApplicationFailure.create({ message: text })))).toBe(false);
    expect(toSendAgain(failed(new Error(text)))).toBe(false);
    expect(toSendAgain(failed(ApplicationFailure.create({ type: 'insufficient_stock', message: 'no stock' })))).toBe(false);
    expect(toSendAgain(ApplicationFailure.create({ type: INTAKE_CLOSING, message: 'not an Update failure' }))).toBe(false);
  });
});
