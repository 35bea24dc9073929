import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ServiceDeps } from './deps';
import { updateFailure, withinDeadline } from './workflow-outcomes';
import type { Page, Paged } from '../domain/paging';
import { conflict, notFound, refusalFailure } from '../domain/failures';
import { requireActiveAccount } from '../domain/account-lifecycle';
import { findAccount } from '../store/accounts';
import { derivedId } from '../store/ids';
import { findAnyOrder, findOrder, listOrders as listOrderRows, type OrderWithDetails } from '../store/orders';
import { toOrder, type OrderCreate } from '../schemas/order';
import {
  cancelOrderUpdate,
  ORDER_CANCELLABLE_MS,
  ORDER_WORKFLOW_TYPE,
  placedUpdate,
  type OrderFulfilmentInput,
} from '../workflows/order-fulfilment-messages';
import { orderWorkflowId } from '../workflows/shared/ids';

/*
 * Orders: each is an order-fulfilment workflow whose id comes from (client, order_number). Placing
 * starts it with an Update that answers once the order is placed, so the answer holds the vouchers.
 */

type OrderView = ReturnType<typeof toOrder>;

async function requireOrder(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string): Promise<OrderWithDetails> {
  return (await findOrder(deps.db, clientId, id)) ?? Promise.reject(notFound('order'));
}

/**
 * Places the order through its workflow and returns it with its vouchers. The same order_number
 * again is a duplicate (with the existing order's id), unless that order was refused.
 */
export async function placeOrder(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'config'>,
  clientId: string,
  o: OrderCreate,
): Promise<OrderView> {
  const { temporal, config } = deps;
  if (o.account_id) requireActiveAccount(o.account_id, await findAccount(deps.db, clientId, o.account_id));
  const workflowId = orderWorkflowId(clientId, o.order_number);
  const orderId = derivedId('ord', workflowId);
  const input: OrderFulfilmentInput = {
    order: {
      orderId,
      clientId,
      orderNumber: o.order_number,
      accountId: o.account_id ?? null,
      applicationId: o.application_id ?? null,
      customerName: o.customer_name,
      shippingAddress: o.shipping_address ?? null,
      items: o.items,
    },
    cancellableForMs: ORDER_CANCELLABLE_MS,
  };
  const startWorkflowOperation = new WithStartWorkflowOperation(ORDER_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [input],
    workflowIdConflictPolicy: 'FAIL',
    // A refused order ends failed, so its order_number may be used again; a placed one never.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
  });
  try {
    const placed = await withinDeadline(
      temporal.workflow.executeUpdateWithStart(placedUpdate, { startWorkflowOperation }),
      config.WORKFLOW_ANSWER_TIMEOUT_SECONDS,
      {
        message: `order ${orderId} is still being placed; GET /orders/${orderId} or retry the same POST (it is idempotent by order_number)`,
        order_id: orderId,
      },
    );
    if (!placed.ok) throw refusalFailure(placed);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      throw conflict('duplicate', `order_number ${o.order_number} is already used by order ${orderId}`, {
        field: 'order_number',
        order_id: orderId,
      });
    }
    throw err;
  }
  return getOrder(deps, clientId, orderId);
}

/** One order of this client, with its items and vouchers (not_found otherwise). */
export async function getOrder(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string): Promise<OrderView> {
  return toOrder(await requireOrder(deps, clientId, id));
}

/** A page of this client's orders, newest first. */
export async function listOrders(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  q: Page & { order_number?: string; status?: OrderWithDetails['status']; account_id?: string },
): Promise<Paged<OrderView>> {
  const { rows, total } = await listOrderRows(deps.db, clientId, q);
  return { rows: rows.map(toOrder), total };
}

/** Cancels the whole order through its workflow (the only change an order takes) and returns it. */
export async function cancelOrder(deps: Pick<ServiceDeps, 'db' | 'temporal'>, clientId: string, id: string): Promise<OrderView> {
  const order = await requireOrder(deps, clientId, id);
  if (order.status === 'cancelled') throw conflict('invalid_state_transition', 'the order is already cancelled');
  await deps.temporal.workflow
    .getHandle(orderWorkflowId(clientId, order.order_number))
    .executeUpdate(cancelOrderUpdate)
    .catch((err) => Promise.reject(updateFailure(err, 'the order can no longer be cancelled; cancel its vouchers one by one')));
  return getOrder(deps, clientId, order.id);
}

/** Any client's order, with who placed it and its workflow: for operators (admin CLI), never the API. */
export async function findOrderForOperator(
  deps: Pick<ServiceDeps, 'db'>,
  orderId: string,
): Promise<(OrderView & { client_id: string; workflow_id: string }) | undefined> {
  const row = await findAnyOrder(deps.db, orderId);
  return row ? { client_id: row.client_id, workflow_id: row.workflow_id, ...toOrder(row) } : undefined;
}
