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

/** How long a sender waits before sending again an order that a closing run refused, and how often at most (10 s in all). */
const CLOSING_RETRY_MS = 50;
const CLOSING_RETRIES = 200;

/**
 * Sends one order to an intake workflow as an Update-with-Start (started when missing, joined
 * otherwise) and answers what placing answered. A run that is closing refuses it before recording
 * anything (INTAKE_CLOSING): it is sent again, under the same update id, until the next run takes
 * it; past CLOSING_RETRIES the client gets backend_unavailable (nothing was placed).
 */
export async function sendToIntake(
  temporal: Client,
  shard: { workflowId: string; taskQueue: string; input: OrderIntakeInput },
  order: IntakeOrder,
  updateId: string,
): Promise<PlacedAnswer> {
  for (let attempt = 0; ; attempt++) {
    // An operation is used once: each attempt makes its own.
    const startWorkflowOperation = new WithStartWorkflowOperation<OrderIntakeWorkflow>(ORDER_INTAKE_WORKFLOW_TYPE, {
      workflowId: shard.workflowId,
      taskQueue: shard.taskQueue,
      args: [shard.input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    try {
      return await temporal.workflow.executeUpdateWithStart(placeOrderUpdate, { startWorkflowOperation, args: [order], updateId });
    } catch (err) {
      if (!refusedAsClosing(err)) throw err;
      if (attempt >= CLOSING_RETRIES)
        throw new Failure('backend_unavailable', 'the order intake did not take the order in time and nothing was placed; retry');
      await new Promise((resolve) => setTimeout(resolve, CLOSING_RETRY_MS));
    }
  }
}

const refusedAsClosing = (err: unknown) =>
  err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === INTAKE_CLOSING;
