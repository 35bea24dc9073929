import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyLocalActivities,
  setHandler,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  INTAKE_CLOSING,
  MAX_ORDERS_PER_UPDATE,
  placeOrdersUpdate,
  type IntakeOrder,
  type OrderIntakeInput,
  type OrderIntakeWorkflow,
  type PlacedAnswer,
} from './order-intake-messages';
import { stepRefusal } from './shared/step-failures';
import { STEP_RETRY } from './shared/step-policy';
import { LONG_LIVED } from './shared/versioning';

// Placing runs as a local activity (no task-queue round trip on the path the client waits for):
// one transaction for the whole batch inside (load, plan, write: docs/decisions/0075-plan-then-write.md),
// each order idempotent by its key and request id, so a batch re-run after a worker crash places
// nothing twice.
const { placeOrderBatch } = proxyLocalActivities<Activities>({ startToCloseTimeout: '30s', retry: STEP_RETRY });

/**
 * At most this many orders per activity call: the call's result (each order's snapshot, up to 100
 * vouchers) is one marker in the history, kept far below Temporal's payload limits (2 MB warns).
 */
const MAX_BATCH = MAX_ORDERS_PER_UPDATE;

/**
 * An order taken by the Update handler, waiting for its answer from the main loop. The handler
 * awaits a promise that the loop resolves rather than a `condition` of its own: the SDK evaluates
 * the pending conditions in passes, each pass one more call into the workflow sandbox (a `vm` call
 * with its timeout watchdog), the largest item of the worker's CPU in a profile (docs/decisions/0042-sharded-order-intake.md).
 */
interface Waiting {
  order: IntakeOrder;
  answer: (a: PlacedAnswer) => void;
}

/**
 * One shard of the order intake, the one way orders are placed: a long-running workflow that takes
 * orders as `placeOrders` Updates (the orders an API process held for this shard), places what has
 * queued through one local activity, and answers each order with its order or its refusal. A
 * refusal is an answer, never a failed Update or workflow: Failed stays for what is broken.
 *
 * Exactly once is the database's: the order's id comes from (client, order_number) and its row
 * records the request that placed it (store/order-placing.ts). Temporal's per-run dedup of update ids only
 * spares a repeated call (the SDK's own retries) a second placing. Nothing is carried across
 * continue-as-new, which comes after `ordersPerRun` orders (or when Temporal suggests it), once
 * what was queued is answered and every handler has finished; a closing run refuses new Updates
 * at its validator (INTAKE_CLOSING), and their senders reach the next run.
 */
export async function orderIntakeWorkflow(input: OrderIntakeInput): Promise<void> {
  const queue: Waiting[] = [];
  let placedInRun = 0;

  const closing = () => placedInRun >= input.ordersPerRun || workflowInfo().continueAsNewSuggested;
  // A closing run takes no new Update (the validator's refusal is not recorded), so it drains
  // and continues as new even while orders keep coming; the sender sends it again.
  const refuseWhenClosing = () => {
    if (closing()) throw ApplicationFailure.create({ type: INTAKE_CLOSING, message: 'this intake run is closing; send the order again' });
  };
  const take = (order: IntakeOrder) => new Promise<PlacedAnswer>((answer) => queue.push({ order, answer }));
  // Each order of the Update is queued on its own (a loop turn may place them with others, or
  // split them across two batches); the Update answers once every one of them is answered.
  setHandler(placeOrdersUpdate, (orders) => Promise.all(orders.map(take)), {
    validator: (orders: IntakeOrder[]) => {
      if (orders.length === 0 || orders.length > MAX_ORDERS_PER_UPDATE)
        throw ApplicationFailure.create({ nonRetryable: true, message: `an Update carries 1 to ${MAX_ORDERS_PER_UPDATE} orders` });
      refuseWhenClosing();
    },
  });

  for (;;) {
    await condition(() => queue.length > 0 || (closing() && allHandlersFinished()));
    if (queue.length === 0) break;
    const batch = queue.splice(0, MAX_BATCH);
    // Failed for good (retries spent on a fault that persists): each order refused as
    // backend_unavailable; nothing of theirs was written (one transaction for the batch).
    const answers = await placeOrderBatch({ orders: batch.map((w) => w.order) }).catch((err: unknown) =>
      batch.map(() => stepRefusal(err, 'the order')),
    );
    batch.forEach((w, i) => w.answer(answers[i]));
    placedInRun += batch.length;
  }
  await continueAsNew<OrderIntakeWorkflow>(input);
}
setWorkflowOptions(LONG_LIVED, orderIntakeWorkflow);
