import { temporal } from '@temporalio/proto';
import { createLocalWorker } from '../../platform/local-worker';
import { orderAnswers } from '../../platform/metrics';
import { resolveEndpoints } from '../../platform/endpoints';
import { startWorker, type RunningWorker } from '../../worker/main';
import { orderWorkflowId } from '../../workflows/shared/ids';
import type { PlacedAnswer } from '../../workflows/order-fulfilment-messages';
import { seedOffer } from '../setup/fixtures';
import { createHarness, type Harness } from '../setup/harness';

const EventType = temporal.api.enums.v1.EventType;

/** order_answers_total by `via`, in this process (every harness of this file shares the registry). */
async function answers(): Promise<Record<string, number>> {
  return Object.fromEntries((await orderAnswers.get()).values.map((v) => [String(v.labels.via), v.value]));
}
const delta = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.keys(after).flatMap((k) => (after[k] - (before[k] ?? 0) ? [[k, after[k] - (before[k] ?? 0)]] : [])));

/**
 * Orders start eagerly when the API has a worker in its own process (`npm start`'s layout): the
 * first workflow task comes back in the start call's answer and runs here, and the placing
 * activity's in-process notice answers the request. Without a worker in the process, or when no
 * notice comes, the `placed` Update answers as before.
 */
const PER_ORDER = { ORDER_INTAKE: 'per-order' };

describe('orders: eager start in the API process, the placed Update as the fallback', () => {
  let h: Harness;
  let subClient: string;
  beforeAll(async () => {
    // The per-order design's eager start (ORDER_INTAKE=sharded, the default, starts no workflow per order).
    h = await createHarness({ worker: true, env: PER_ORDER });
    subClient = (await h.client('submission')).clientId;
  });
  afterAll(() => h.close());

  const post = (api: Harness, key: string, orderNumber: string, items: { offer_id: string; quantity: number }[]) =>
    api.app.inject({
      method: 'POST',
      url: '/distribution/beta/orders',
      headers: { 'x-service-api-key': key },
      payload: { order: { order_number: orderNumber, customer_name: 'Ada Lovelace', items } },
    });

  it('runs the first workflow task in this process without matching, and answers on the placing notice', async () => {
    const { key, clientId } = await h.client('distribution');
    const offerId = await seedOffer(h, subClient, { initial_quantity: 10 });
    const before = await answers();
    const res = await post(h, key, 'eager-1', [{ offer_id: offerId, quantity: 2 }]);
    expect(res.statusCode).toBe(200);
    expect(res.json().order.vouchers).toHaveLength(2);
    expect(res.json().order.vouchers[0].print_url).toMatch(/^http/);
    expect(delta(before, await answers())).toEqual({ eager_notice: 1 });
    // The history shows the eager dispatch: the server accepted eager execution and recorded the
    // first task as started with the start itself (no poll of the task queue came between), and
    // the workflow ended in that one task. The API answered before the task completed: wait for it.
    const handle = h.services.temporal.workflow.getHandle(orderWorkflowId(clientId, 'eager-1'));
    await handle.result();
    const history = await handle.fetchHistory();
    const events = history.events!;
    expect(events[0].workflowExecutionStartedEventAttributes?.eagerExecutionAccepted).toBe(true);
    expect(events.slice(0, 3).map((e) => e.eventType)).toEqual([
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    ]);
    expect(events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)).toHaveLength(1);
    expect(events.at(-1)!.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
    // Nobody is left waiting for a notice.
    expect(h.services.localWorker!.placed.size).toBe(0);
  });

  it('keeps an order_number to one order, and frees a refused one for the corrected retry', async () => {
    const key = await h.key('distribution');
    const offerId = await seedOffer(h, subClient, { initial_quantity: 3 });
    const refused = await post(h, key, 'eager-2', [{ offer_id: offerId, quantity: 4 }]);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().errors[0]).toMatchObject({ code: 'insufficient_stock', available: 3 });
    const placed = await post(h, key, 'eager-2', [{ offer_id: offerId, quantity: 3 }]);
    expect(placed.statusCode).toBe(200);
    const again = await post(h, key, 'eager-2', [{ offer_id: offerId, quantity: 1 }]);
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0]).toMatchObject({ code: 'duplicate', order_id: placed.json().order.id });
  });

  it('places orders through Update-with-Start from an API whose process runs no worker', async () => {
    // Another API on the same task queue, without a worker (RUN_WORKER=false): the worker of the
    // first harness places its orders.
    const api = await createHarness({ env: { ...PER_ORDER, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE } });
    try {
      const { key, clientId } = await api.client('distribution');
      const offerId = await seedOffer(h, subClient, { initial_quantity: 10 });
      const before = await answers();
      const res = await post(api, key, 'split-1', [{ offer_id: offerId, quantity: 1 }]);
      expect(res.statusCode).toBe(200);
      expect(res.json().order.vouchers).toHaveLength(1);
      expect(delta(before, await answers())).toEqual({ update_with_start: 1 });
      const history = await api.services.temporal.workflow.getHandle(orderWorkflowId(clientId, 'split-1')).fetchHistory();
      expect(history.events![0].workflowExecutionStartedEventAttributes?.eagerExecutionAccepted).toBeFalsy();
    } finally {
      await api.close();
    }
  });

  describe('when the placing notice does not come', () => {
    // An API that starts orders eagerly on a worker whose activities tell another process (here:
    // another wait room), as when the task ran elsewhere: the answer must come from the workflow.
    let api: Harness;
    let worker: RunningWorker;
    beforeAll(async () => {
      api = await createHarness({ env: PER_ORDER });
      const elsewhere = createLocalWorker<PlacedAnswer>();
      worker = await startWorker({
        deps: { ...api.services, localWorker: elsewhere },
        endpoints: resolveEndpoints(api.config),
        taskQueue: api.config.TEMPORAL_TASK_QUEUE,
        workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH,
        callbackDispatcher: false,
      });
      api.services.localWorker!.client = elsewhere.client;
      api.services.localWorker!.taskQueue = elsewhere.taskQueue;
    });
    afterAll(async () => {
      await worker.shutdown();
      await api.close();
    });

    it('answers through the placed Update (or the ended workflow), after the wait for the notice', async () => {
      const key = await api.key('distribution');
      const offerId = await seedOffer(api, subClient, { initial_quantity: 10 });
      const before = await answers();
      const t0 = Date.now();
      const res = await post(api, key, 'fallback-1', [{ offer_id: offerId, quantity: 2 }]);
      expect(res.statusCode).toBe(200);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_900);
      expect(res.json().order.vouchers).toHaveLength(2);
      expect(res.json().order.vouchers[0].print_url).toMatch(/^http/);
      expect(delta(before, await answers())).toEqual({ eager_update: 1 });
      // A refusal comes the same way, and frees the order_number.
      const refused = await post(api, key, 'fallback-2', [{ offer_id: offerId, quantity: 9 }]);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().errors[0]).toMatchObject({ code: 'insufficient_stock', available: 8 });
      expect((await post(api, key, 'fallback-2', [{ offer_id: offerId, quantity: 8 }])).statusCode).toBe(200);
      expect(api.services.localWorker!.placed.size).toBe(0);
    }, 30_000);
  });
});
