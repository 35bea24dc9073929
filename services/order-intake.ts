import crypto from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { ServiceDeps } from './deps';
import {
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
  const input: OrderIntakeInput = { ordersPerRun: config.ORDER_INTAKE_ORDERS_PER_RUN };
  const startWorkflowOperation = new WithStartWorkflowOperation<OrderIntakeWorkflow>(ORDER_INTAKE_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  const request: IntakeOrder = { ...order, requestId };
  const answer = await deps.temporal.workflow.executeUpdateWithStart(placeOrderUpdate, {
    startWorkflowOperation,
    args: [request],
    updateId,
  });
  deps.metrics.orderAnswered('intake');
  return answer;
}
