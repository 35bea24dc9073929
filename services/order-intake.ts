import crypto from 'node:crypto';
import { ApplicationFailure, WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { ServiceDeps } from './deps';
import { Failure } from '../domain/failures';
import {
  INTAKE_CLOSING,
  MAX_ORDERS_PER_UPDATE,
  ORDER_INTAKE_WORKFLOW_TYPE,
  placeOrderUpdate,
  placeOrdersUpdate,
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
  orderIntakeUpdateId,
  orderIntakeWorkflowId,
} from '../workflows/shared/ids';

/*
 * The sharded order intake (ORDER_INTAKE=sharded; docs/orders-and-vouchers.md#order-intake): the
 * order goes as an Update-with-Start to the intake workflow of its shard, started when missing and
 * joined otherwise (USE_EXISTING). Every process computes the same shard from (client,
 * order_number), so retries of an order_number meet at one workflow; the database decides whether
 * an order already there is this request's or a duplicate (store/orders.ts).
 *
 * With ORDER_INTAKE_COALESCE (the default) a process sends at most one Update at a time to a shard:
 * orders for it that arrive meanwhile wait here and go together as one `placeOrders` Update when
 * it is answered (Nagle's algorithm without its timer: an order for an idle shard goes at once).
 * The worker's and Temporal's costs are per Update and per workflow activation, not per order.
 */

/** Where an order's handling is found in Temporal: its intake workflow, and the id of the Update that carried it. */
export function intakeLocation(config: ServiceDeps['config'], clientId: string, orderNumber: string, requestId: string) {
  return { workflowId: intakeWorkflowIdOf(config, clientId, orderNumber), updateId: intakeUpdateIdOf(clientId, orderNumber, requestId) };
}

/** The intake workflow of the order's shard, by (client, order_number): the same in every process. */
const intakeWorkflowIdOf = (config: ServiceDeps['config'], clientId: string, orderNumber: string) =>
  orderIntakeWorkflowId(config.TEMPORAL_TASK_QUEUE, orderIntakeShard(clientId, orderNumber, config.ORDER_INTAKE_SHARDS));

type Shard = { workflowId: string; taskQueue: string; input: OrderIntakeInput };

/**
 * Places the order through its shard's intake workflow and returns what placing answered (the
 * order, or its refusal as a value). One request id per call: the SDK's retries of this call reuse
 * it (Temporal answers them from the same update), a new POST makes a new one. Coalesced, the
 * request id is the batch's id and the order's place in it (intakeBatchRequestId).
 */
export async function placeThroughIntake(
  deps: Pick<ServiceDeps, 'temporal' | 'config' | 'metrics'>,
  order: PlaceOrderInput,
): Promise<PlacedAnswer> {
  const { config } = deps;
  const workflowId = intakeWorkflowIdOf(config, order.clientId, order.orderNumber);
  const shard: Shard = { workflowId, taskQueue: config.TEMPORAL_TASK_QUEUE, input: { ordersPerRun: config.ORDER_INTAKE_ORDERS_PER_RUN } };
  let answer: PlacedAnswer;
  if (config.ORDER_INTAKE_COALESCE) {
    answer = await coalesced(deps.temporal, shard, order, config.WORKFLOW_ANSWER_TIMEOUT_SECONDS);
  } else {
    const requestId = crypto.randomUUID();
    answer = await sendToIntake(
      deps.temporal,
      shard,
      { ...order, requestId },
      orderIntakeUpdateId(order.clientId, order.orderNumber, requestId),
    );
  }
  deps.metrics.orderAnswered('intake');
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
 * Updates this process has in flight per shard when coalescing. One: the shard's workflow places
 * its batches one after the other anyway, and the orders that arrive during a send are the next
 * batch. Several API processes share Temporal's 10 Updates in flight per workflow, one each.
 */
const UPDATES_IN_FLIGHT_PER_SHARD = 1;
const outboxes = new WeakMap<Client, Map<string, ShardOutbox>>();

/** What this process has for one shard while coalescing: Updates in flight, orders held (for diagnostics and tests). */
export function intakeOutbox(temporal: Client, workflowId: string): { inFlight: number; held: number } {
  const outbox = outboxes.get(temporal)?.get(workflowId);
  return { inFlight: outbox?.inFlight ?? 0, held: outbox?.held.length ?? 0 };
}

/** Holds the order for its shard's next Update, sends it when none is in flight, and answers what placing answered. */
function coalesced(temporal: Client, shard: Shard, order: PlaceOrderInput, answerSeconds: number): Promise<PlacedAnswer> {
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
 * How a sender sends again an order that a closing run refused: soon at first (the next run usually
 * starts within a few milliseconds of the refusal), then backing off so a slow start is not
 * flooded with refusals (each one is a workflow task); 10 s in all.
 */
const RESEND_FIRST_MS = 5;
const RESEND_MAX_MS = 100;
const RESEND_FOR_MS = 10_000;

/**
 * Uncoalesced (ORDER_INTAKE_COALESCE=false): at most this many of this process's orders in flight
 * per intake workflow; more wait here for a slot. Temporal takes at most 10 Updates in flight per workflow and answers an 11th with
 * RESOURCE_EXHAUSTED, which its client retries after a second (measured: c32 p99 of 30 s with 4
 * shards); waiting here costs nothing. Several API processes share the 10 (docs/deployment.md).
 */
const IN_FLIGHT_PER_SHARD = 8;
interface ShardSlot {
  used: number;
  waiting: Array<() => void>;
}
const shardSlots = new WeakMap<Client, Map<string, ShardSlot>>();

/** Runs `send` once this process has fewer than IN_FLIGHT_PER_SHARD orders in flight to `workflowId`. */
async function inShardSlot<T>(temporal: Client, workflowId: string, send: () => Promise<T>): Promise<T> {
  const byShard = shardSlots.get(temporal) ?? new Map<string, ShardSlot>();
  shardSlots.set(temporal, byShard);
  const slot: ShardSlot = byShard.get(workflowId) ?? { used: 0, waiting: [] };
  byShard.set(workflowId, slot);
  if (slot.used >= IN_FLIGHT_PER_SHARD) await new Promise<void>((resolve) => slot.waiting.push(resolve));
  else slot.used++;
  try {
    return await send();
  } finally {
    // The slot passes to the next waiting order as it is (still counted), or is freed.
    const next = slot.waiting.shift();
    if (next) next();
    else if (--slot.used === 0) byShard.delete(workflowId);
  }
}

/** Sends one order as its own `placeOrder` Update (ORDER_INTAKE_COALESCE=false), in this process's slots per shard. */
export function sendToIntake(temporal: Client, shard: Shard, order: IntakeOrder, updateId: string): Promise<PlacedAnswer> {
  return sendUpdate(temporal, shard, placeOrderUpdate, order, updateId, (send) => inShardSlot(temporal, shard.workflowId, send));
}

/**
 * Sends orders as one `placeOrders` Update and answers each order's placing, in the order given.
 * A resend (closing run, ended run) sends the whole batch again: the database answers an order the
 * earlier attempt placed by its request id and places the others.
 */
export function sendOrdersToIntake(temporal: Client, shard: Shard, orders: IntakeOrder[], updateId: string): Promise<PlacedAnswer[]> {
  return sendUpdate(temporal, shard, placeOrdersUpdate, orders, updateId, (send) => send());
}

/**
 * Sends an Update to an intake workflow with its start (started when missing, joined otherwise)
 * and answers what placing answered. A run that is closing refuses it before recording anything
 * (INTAKE_CLOSING): it is sent again, under the same update id, until the next run takes it; past
 * RESEND_FOR_MS the client gets backend_unavailable.
 */
async function sendUpdate<Ret, Arg>(
  temporal: Client,
  shard: Shard,
  update: UpdateDefinition<Ret, [Arg]>,
  arg: Arg,
  updateId: string,
  gate: (send: () => Promise<Ret>) => Promise<Ret>,
): Promise<Ret> {
  const giveUpAt = Date.now() + RESEND_FOR_MS;
  for (let delay = RESEND_FIRST_MS; ; delay = Math.min(RESEND_MAX_MS, delay * 2)) {
    // An operation is used once: each attempt makes its own.
    const startWorkflowOperation = new WithStartWorkflowOperation<OrderIntakeWorkflow>(ORDER_INTAKE_WORKFLOW_TYPE, {
      workflowId: shard.workflowId,
      taskQueue: shard.taskQueue,
      args: [shard.input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    try {
      return await gate(() => temporal.workflow.executeUpdateWithStart(update, { startWorkflowOperation, args: [arg], updateId }));
    } catch (err) {
      if (!refusedAsClosing(err)) throw err;
      if (Date.now() >= giveUpAt)
        throw new Failure('backend_unavailable', 'the order intake did not take the order in time; retry the same order later');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * Answers to send the order again on: the closing run's refusal, and the Temporal server's own
 * failures of an Update that the run did not see through, both seen under load in the bench: the
 * run ended (continued as new) before the Update completed, or a workflow task carried the Update
 * and completed without taking or refusing it. Either way the database decides what the resend
 * does: an order that the ended run had placed is found by its request id and answered as placed,
 * one it had not is placed now.
 */
const refusedAsClosing = (err: unknown) =>
  err instanceof WorkflowUpdateFailedError &&
  ((err.cause instanceof ApplicationFailure && err.cause.type === INTAKE_CLOSING) ||
    (err.cause instanceof Error && RUN_ENDED.test(err.cause.message)));

/** The Temporal server's failures of an Update the run did not see through (its service/history/workflow/update). */
const RUN_ENDED = /the Workflow completed before the Update completed|Update is rejected because it wasn't processed by worker/;
