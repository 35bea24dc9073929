import crypto from 'node:crypto';
import { ApplicationFailure, WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { ServiceDeps } from './deps';
import { Failure } from '../domain/failures';
import { waitFor } from '../platform/wait-for';
import {
  INTAKE_CLOSING,
  MAX_ORDERS_PER_UPDATE,
  ORDER_INTAKE_WORKFLOW_TYPE,
  placeOrdersUpdate,
  SERVER_UPDATE_NOT_SEEN_THROUGH,
  type IntakeOrder,
  type OrderIntakeInput,
  type OrderIntakeWorkflow,
  type PlacedAnswer,
  type PlaceOrderInput,
} from '../workflows/order-intake-messages';
import {
  intakeBatchRequestId,
  intakeBatchUpdateId,
  intakeUpdateIdOf,
  orderIntakeShard,
  orderIntakeWorkflowId,
} from '../workflows/shared/ids';

/*
 * The order intake, the one way orders are placed (docs/order-intake.md): an
 * order goes in a `placeOrders` Update-with-Start to the intake workflow of its shard, started when
 * missing and joined otherwise (USE_EXISTING). Every process computes the same shard from the
 * order's first offer, so the orders of one offer meet at one workflow and are placed together; the
 * database decides whether an order already there is this request's or a duplicate
 * (store/order-placing.ts), whichever shard placed it.
 *
 * A process sends at most one Update at a time to a shard: orders for it that arrive meanwhile
 * wait here and go together as the next `placeOrders` Update when it is answered (Nagle's
 * algorithm without its timer: an order for an idle shard goes at once). The worker's and
 * Temporal's costs are per Update and per workflow activation, not per order.
 */

/** Where an order's handling is found in Temporal: its intake workflow, and the id of the Update that carried it. */
export function intakeLocation(config: ServiceDeps['config'], items: readonly OrderItem[], requestId: string) {
  return { workflowId: intakeWorkflowIdOf(config, items), updateId: intakeUpdateIdOf(requestId) };
}

/** The intake workflow of the order's shard, by its first offer: the same in every process. */
function intakeWorkflowIdOf(config: ServiceDeps['config'], items: readonly OrderItem[]): string {
  const offerIds = items.map((it) => it.offer_id);
  return orderIntakeWorkflowId(config.TEMPORAL_TASK_QUEUE, orderIntakeShard(offerIds, config.ORDER_INTAKE_SHARDS));
}

type OrderItem = { offer_id: string };

type Shard = { workflowId: string; taskQueue: string; input: OrderIntakeInput };

/**
 * Places the order through its shard's intake workflow and returns what placing answered (the
 * order, or its refusal as a value). The order's request id is its batch's id and its place in it
 * (intakeBatchRequestId): the SDK's retries and the resends of the batch reuse it, a new POST is
 * in another batch.
 */
export async function placeThroughIntake(
  deps: Pick<ServiceDeps, 'temporal' | 'config' | 'metrics'>,
  order: PlaceOrderInput,
): Promise<PlacedAnswer> {
  const { config } = deps;
  const workflowId = intakeWorkflowIdOf(config, order.items);
  const shard: Shard = { workflowId, taskQueue: config.TEMPORAL_TASK_QUEUE, input: { ordersPerRun: config.ORDER_INTAKE_ORDERS_PER_RUN } };
  const answer = await holdForNextUpdate(deps.temporal, shard, order, config.WORKFLOW_ANSWER_TIMEOUT_SECONDS);
  deps.metrics.orderAnswered();
  return answer;
}

/** An order waiting in this process for its shard's Update in flight to be answered. */
interface Held {
  order: PlaceOrderInput;
  resolve: (a: PlacedAnswer) => void;
  reject: (err: unknown) => void;
}
/** One shard's coalescing: whether an Update is in flight to it, and the orders held meanwhile. */
interface ShardOutbox {
  inFlight: number;
  held: Held[];
}
/**
 * Updates this process has in flight per shard. One: the shard's workflow places
 * its batches one after the other anyway, and the orders that arrive during a send are the next
 * batch. Several API processes share Temporal's 10 Updates in flight per workflow, one each.
 */
const UPDATES_IN_FLIGHT_PER_SHARD = 1;
const outboxes = new WeakMap<Client, Map<string, ShardOutbox>>();

/** What this process has for one shard: Updates in flight, orders held (for diagnostics and tests). */
export function intakeOutbox(temporal: Client, workflowId: string): { inFlight: number; held: number } {
  const outbox = outboxes.get(temporal)?.get(workflowId);
  return { inFlight: outbox?.inFlight ?? 0, held: outbox?.held.length ?? 0 };
}

/** Holds the order for its shard's next Update, sends it when none is in flight, and answers what placing answered. */
function holdForNextUpdate(temporal: Client, shard: Shard, order: PlaceOrderInput, answerSeconds: number): Promise<PlacedAnswer> {
  const byShard = outboxes.get(temporal) ?? new Map<string, ShardOutbox>();
  outboxes.set(temporal, byShard);
  const outbox: ShardOutbox = byShard.get(shard.workflowId) ?? { inFlight: 0, held: [] };
  byShard.set(shard.workflowId, outbox);
  const answer = new Promise<PlacedAnswer>((resolve, reject) => outbox.held.push({ order, resolve, reject }));
  flush(temporal, shard, outbox, byShard, answerSeconds);
  return answer;
}

/**
 * Sends what the shard's outbox holds, up to MAX_ORDERS_PER_UPDATE orders an Update, while fewer
 * than UPDATES_IN_FLIGHT_PER_SHARD are in flight; each answer sends what was held meanwhile. The
 * Update is the batch's, not one request's: it runs under an abort signal of its own (a request
 * that gives up at its deadline must not abort the others' Update), aborted `answerSeconds` after
 * it is sent, by when every request of the batch has had its answer or its deadline.
 */
function flush(temporal: Client, shard: Shard, outbox: ShardOutbox, byShard: Map<string, ShardOutbox>, answerSeconds: number) {
  while (outbox.inFlight < UPDATES_IN_FLIGHT_PER_SHARD && outbox.held.length > 0) {
    const batch = outbox.held.splice(0, MAX_ORDERS_PER_UPDATE);
    outbox.inFlight++;
    const batchId = crypto.randomUUID();
    const orders = batch.map((h, i) => ({ ...h.order, requestId: intakeBatchRequestId(batchId, i) }));
    const abandon = new AbortController();
    const timer = setTimeout(() => abandon.abort(), answerSeconds * 1000);
    temporal
      .withAbortSignal(abandon.signal, () => sendOrdersToIntake(temporal, shard, orders, intakeBatchUpdateId(batchId)))
      .then(
        (answers) => batch.forEach((h, i) => h.resolve(answers[i])),
        (err: unknown) => batch.forEach((h) => h.reject(err)),
      )
      .finally(() => {
        clearTimeout(timer);
        outbox.inFlight--;
        if (outbox.inFlight === 0 && outbox.held.length === 0) byShard.delete(shard.workflowId);
        else flush(temporal, shard, outbox, byShard, answerSeconds);
      });
  }
}

/**
 * How a sender sends again an order that a closing run refused (`waitFor`'s pauses): soon at first
 * (the next run usually starts within a few milliseconds of the refusal), then backing off so a
 * slow start is not flooded with refusals (each one is a workflow task); 10 s in all.
 */
const RESEND_FIRST_MS = 5;
const RESEND_MAX_MS = 100;
const RESEND_FOR_MS = 10_000;

/**
 * Sends orders as one `placeOrders` Update-with-Start (the workflow started when missing, joined
 * otherwise) and answers each order's placing, in the order given. A run that is closing refuses
 * the Update before recording anything (INTAKE_CLOSING), and the server fails one that a run did
 * not see through (SERVER_UPDATE_NOT_SEEN_THROUGH): the whole batch is sent again, under the same
 * update id, until a run takes it (the database answers an order that an earlier attempt placed by
 * its request id, and places the others); past RESEND_FOR_MS the clients get backend_unavailable.
 */
export function sendOrdersToIntake(temporal: Client, shard: Shard, orders: IntakeOrder[], updateId: string): Promise<PlacedAnswer[]> {
  const send = async (): Promise<PlacedAnswer[] | undefined> => {
    // An operation is used once: each attempt makes its own.
    const startWorkflowOperation = new WithStartWorkflowOperation<OrderIntakeWorkflow>(ORDER_INTAKE_WORKFLOW_TYPE, {
      workflowId: shard.workflowId,
      taskQueue: shard.taskQueue,
      args: [shard.input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    try {
      return await temporal.workflow.executeUpdateWithStart(placeOrdersUpdate, { startWorkflowOperation, args: [orders], updateId });
    } catch (err) {
      if (!toSendAgain(err)) throw err;
      return undefined;
    }
  };
  return waitFor('the order intake to take the orders', send, {
    deadlineMs: RESEND_FOR_MS,
    firstMs: RESEND_FIRST_MS,
    maxMs: RESEND_MAX_MS,
    deadlineError: () => new Failure('backend_unavailable', 'the order intake did not take the order in time; retry the same order later'),
  });
}

/** Failure types on which the Update is sent again: the closing run's refusal, and the server's own (see the contract). */
const SEND_AGAIN_ON: ReadonlySet<string> = new Set([INTAKE_CLOSING, ...SERVER_UPDATE_NOT_SEEN_THROUGH]);

/**
 * Whether a failed Update is sent again, decided by its failure's type (never its text): the
 * closing run's refusal, or the server's failure of an Update a run did not see through (both seen
 * under load). Either way the database decides what the resend does: an order that
 * the ended run had placed is found by its request id and answered as placed, one it had not is
 * placed now.
 */
export const toSendAgain = (err: unknown): boolean =>
  err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && SEND_AGAIN_ON.has(err.cause.type ?? '');
