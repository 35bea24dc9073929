import crypto from 'node:crypto';
import { ApplicationFailure, WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { ServiceDeps } from './deps';
import { Failure } from '../domain/failures';
import {
  INTAKE_CLOSING,
  ORDER_INTAKE_WORKFLOW_TYPE,
  placeOrderUpdate,
  type IntakeOrder,
  type OrderIntakeInput,
  type OrderIntakeWorkflow,
  type PlacedAnswer,
  type PlaceOrderInput,
} from '../workflows/order-intake-messages';
import { orderIntakeShard, orderIntakeUpdateId, orderIntakeWorkflowId } from '../workflows/shared/ids';

/*
 * The sharded order intake (ORDER_INTAKE=sharded; docs/orders-and-vouchers.md#order-intake): the
 * order goes as an Update-with-Start to the intake workflow of its shard, started when missing and
 * joined otherwise (USE_EXISTING). Every process computes the same shard from (client,
 * order_number), so retries of an order_number meet at one workflow; the database decides whether
 * an order already there is this request's or a duplicate (store/orders.ts).
 */

/** Where an order's handling is found in Temporal: its intake workflow, and the update id prefix of its requests. */
export function intakeLocation(config: ServiceDeps['config'], clientId: string, orderNumber: string, requestId: string) {
  const shard = orderIntakeShard(clientId, orderNumber, config.ORDER_INTAKE_SHARDS);
  return {
    workflowId: orderIntakeWorkflowId(config.TEMPORAL_TASK_QUEUE, shard),
    updateId: orderIntakeUpdateId(clientId, orderNumber, requestId),
  };
}

/**
 * Places the order through its shard's intake workflow and returns what placing answered (the
 * order, or its refusal as a value). One request id per call: the SDK's retries of this call reuse
 * it (Temporal answers them from the same update), a new POST makes a new one.
 */
export async function placeThroughIntake(
  deps: Pick<ServiceDeps, 'temporal' | 'config' | 'metrics'>,
  order: PlaceOrderInput,
): Promise<PlacedAnswer> {
  const { config } = deps;
  const requestId = crypto.randomUUID();
  const { workflowId, updateId } = intakeLocation(config, order.clientId, order.orderNumber, requestId);
  const shard = { workflowId, taskQueue: config.TEMPORAL_TASK_QUEUE, input: { ordersPerRun: config.ORDER_INTAKE_ORDERS_PER_RUN } };
  const answer = await sendToIntake(deps.temporal, shard, { ...order, requestId }, updateId);
  deps.metrics.orderAnswered('intake');
  return answer;
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
 * At most this many of this process's orders in flight per intake workflow; more wait here for a
 * slot. Temporal takes at most 10 Updates in flight per workflow and answers an 11th with
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

/**
 * Sends one order to an intake workflow as an Update-with-Start (started when missing, joined
 * otherwise) and answers what placing answered. A run that is closing refuses it before recording
 * anything (INTAKE_CLOSING): it is sent again, under the same update id, until the next run takes
 * it; past RESEND_FOR_MS the client gets backend_unavailable.
 */
export async function sendToIntake(
  temporal: Client,
  shard: { workflowId: string; taskQueue: string; input: OrderIntakeInput },
  order: IntakeOrder,
  updateId: string,
): Promise<PlacedAnswer> {
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
      return await inShardSlot(temporal, shard.workflowId, () =>
        temporal.workflow.executeUpdateWithStart(placeOrderUpdate, { startWorkflowOperation, args: [order], updateId }),
      );
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
