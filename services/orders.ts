import { WithStartWorkflowOperation } from '@temporalio/client';
import type { ServiceDeps } from './deps';
import { updateWithinDeadline, withinDeadline } from './workflow-outcomes';
import { intakeLocation, placeThroughIntake } from './order-intake';
import type { Page, Paged } from '../domain/paging';
import { Failure, notFound, refusalFailure } from '../domain/failures';
import { requireActiveAccount } from '../domain/account-lifecycle';
import { orderKey, type PlaceOrderInput } from '../domain/orders';
import { findAccount } from '../store/accounts';
import { derivedId } from '../store/ids';
import { findAnyOrder, findOrder, listOrders as listOrderRows, type OrderWithDetails } from '../store/orders';
import { LIST_VOUCHERS_PER_ORDER, toOrder, type OrderCreate } from '../schemas/order';
import { cancelledUpdate, ORDER_CANCELLATION_WORKFLOW_TYPE, type OrderCancellationInput } from '../workflows/order-cancellation-messages';
import { orderCancellationWorkflowId } from '../workflows/shared/ids';

/*
 * Orders. Placing goes through the order intake (services/order-intake.ts): the order joins the
 * `placeOrders` Update its API process sends to the intake workflow of the order's shard, whose
 * batch activity records it in one transaction (store/order-placing.ts) and answers it with its
 * vouchers. Its id comes from (client, order_number), so the same order_number again is a duplicate.
 * Cancelling is an order-cancellation workflow whose id comes from the order.
 */

type OrderView = ReturnType<typeof toOrder>;

async function requireOrder(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string): Promise<OrderWithDetails> {
  return (await findOrder(deps.db, clientId, id)) ?? Promise.reject(notFound('order'));
}

/**
 * Places the order through the order intake and returns it with its vouchers. The same
 * order_number again is a duplicate (409, with the existing order's id), unless that order was
 * refused: a refused order writes nothing, so its number stays free for the corrected retry.
 */
export async function placeOrder(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'config' | 'metrics'>,
  clientId: string,
  o: OrderCreate,
  siteBase: string,
): Promise<OrderView> {
  if (o.account_id) await requireBuyingAccount(deps, clientId, o.account_id);
  const order = placeOrderInput(clientId, o);
  const late = {
    message: `order ${order.orderId} is still being placed; GET /orders/${order.orderId} or retry the same POST (it is idempotent by order_number)`,
    order_id: order.orderId,
  };
  const placed = await withinDeadline(
    deps.temporal,
    () => placeThroughIntake(deps, order),
    deps.config.WORKFLOW_ANSWER_TIMEOUT_SECONDS,
    late,
  );
  if (!placed.ok) throw refusalFailure(placed);
  // The answer holds the order as placing wrote it, unless it was too large to carry: then it is read.
  return 'orderSnapshot' in placed ? toOrder(placed.orderSnapshot, siteBase) : getOrder(deps, clientId, order.orderId, siteBase);
}

/** Refused before the order is sent; the placing activity counts the refusals it decides itself. */
async function requireBuyingAccount(deps: Pick<ServiceDeps, 'db' | 'metrics'>, clientId: string, accountId: string): Promise<void> {
  try {
    requireActiveAccount(accountId, await findAccount(deps.db, clientId, accountId));
  } catch (err) {
    if (err instanceof Failure) deps.metrics.orderRefused(err.details[0].code);
    throw err;
  }
}

/** What placing is given: the order under its key, whose id derives from the key. */
function placeOrderInput(clientId: string, o: OrderCreate): PlaceOrderInput {
  const key = orderKey(clientId, o.order_number);
  return {
    orderKey: key,
    orderId: derivedId('ord', key),
    clientId,
    orderNumber: o.order_number,
    accountId: o.account_id ?? null,
    applicationId: o.application_id ?? null,
    customerName: o.customer_name,
    customerReference: o.customer_reference ?? null,
    shippingAddress: o.shipping_address ?? null,
    items: o.items,
  };
}

/** One order of this client, with its items and vouchers (not_found otherwise). */
export async function getOrder(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string, siteBase: string): Promise<OrderView> {
  return toOrder(await requireOrder(deps, clientId, id), siteBase);
}

/** A page of this client's orders, newest first; each shows its first LIST_VOUCHERS_PER_ORDER vouchers (bounded answers). */
export async function listOrders(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  q: Page & { order_number?: string; status?: OrderWithDetails['status']; account_id?: string },
  siteBase: string,
): Promise<Paged<OrderView>> {
  const { rows, total } = await listOrderRows(deps.db, clientId, q, LIST_VOUCHERS_PER_ORDER);
  return { rows: rows.map((r) => toOrder(r, siteBase)), total };
}

/**
 * Cancels the order through its cancellation workflow and returns it: acquired vouchers cancelled,
 * redeemed ones kept. Cancelling a cancelled order answers it as it is (the PUT is idempotent).
 */
export async function cancelOrder(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'config'>,
  clientId: string,
  id: string,
  siteBase: string,
): Promise<OrderView> {
  const { temporal, config } = deps;
  const order = await requireOrder(deps, clientId, id);
  if (order.status === 'cancelled') return toOrder(order, siteBase);
  const input: OrderCancellationInput = { orderId: order.id };
  const startWorkflowOperation = new WithStartWorkflowOperation(ORDER_CANCELLATION_WORKFLOW_TYPE, {
    workflowId: orderCancellationWorkflowId(order.id),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [input],
    // A request while one runs joins it; one after it ended starts a run that changes nothing.
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
  });
  const at = `GET /orders/${order.id}`;
  const cancelled = await updateWithinDeadline(
    deps,
    (waitForStage) => temporal.workflow.startUpdateWithStart(cancelledUpdate, { startWorkflowOperation, waitForStage }),
    {
      accepted: `order ${order.id} is being cancelled; ${at} shows it cancelled once it is`,
      unconfirmed: `the cancellation of order ${order.id} could not be confirmed in time; ${at}, or retry the same PUT`,
      order_id: order.id,
    },
    'the order could not be cancelled; retry',
  );
  if (!cancelled.ok) throw refusalFailure(cancelled);
  return getOrder(deps, clientId, order.id, siteBase);
}

/** Where to look in Temporal for an order: its intake workflow and the Update that carried it. */
type IntakeHandling = { intake_workflow_id: string; intake_update_id: string };

/**
 * Any client's order, with who placed it and where: for operators (admin CLI), never the API.
 * `order_key` is the order's key (orderKey); an order placed through the intake (it has a request
 * id) names its intake workflow (computed from its first offer, with this configuration's
 * ORDER_INTAKE_SHARDS and task queue) and the id of the Update that carried it. An order placed
 * before issue 32 has no request id: its key was the id of the per-order workflow that placed it.
 */
export async function findOrderForOperator(
  deps: Pick<ServiceDeps, 'db' | 'config'>,
  orderId: string,
  siteBase: string,
): Promise<(OrderView & { client_id: string; order_key: string } & Partial<IntakeHandling>) | undefined> {
  const row = await findAnyOrder(deps.db, orderId);
  if (!row) return undefined;
  const intake = row.request_id ? intakeLocation(deps.config, row.items, row.request_id) : undefined;
  return {
    client_id: row.client_id,
    order_key: row.order_key,
    ...(intake ? { intake_workflow_id: intake.workflowId, intake_update_id: intake.updateId } : {}),
    ...toOrder(row, siteBase),
  };
}
