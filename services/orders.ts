import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { ServiceDeps } from './deps';
import { refusalCarried, updateWithinDeadline, withinDeadline } from './workflow-outcomes';
import { intakeLocation, placeThroughIntake } from './order-intake';
import type { Page, Paged } from '../domain/paging';
import { conflict, Failure, notFound, refusalFailure } from '../domain/failures';
import { requireActiveAccount } from '../domain/account-lifecycle';
import { findAccount } from '../store/accounts';
import { derivedId } from '../store/ids';
import { findAnyOrder, findOrder, listOrders as listOrderRows, type OrderWithDetails } from '../store/orders';
import { LIST_VOUCHERS_PER_ORDER, toOrder, type OrderCreate } from '../schemas/order';
import {
  ORDER_WORKFLOW_TYPE,
  placedUpdate,
  type OrderFulfilmentInput,
  type OrderFulfilmentWorkflow,
  type PlacedAnswer,
} from '../workflows/order-fulfilment-messages';
import { cancelledUpdate, ORDER_CANCELLATION_WORKFLOW_TYPE, type OrderCancellationInput } from '../workflows/order-cancellation-messages';
import { orderCancellationWorkflowId, orderWorkflowId } from '../workflows/shared/ids';

/*
 * Orders: each is placed by an order-fulfilment workflow whose id comes from (client,
 * order_number). The answer holds the vouchers: when a worker runs in this process, the workflow
 * starts eagerly on it and the placing activity's notice answers (placeEagerly); otherwise an
 * Update sent with the start answers once the order is placed. With ORDER_INTAKE=sharded the
 * order goes instead as an Update to its shard's long-running intake workflow
 * (services/order-intake.ts), under the same order id. Cancelling is an order-cancellation
 * workflow whose id comes from the order, either way.
 */

type OrderView = ReturnType<typeof toOrder>;
/** How an order's workflow starts, either way (Update-with-Start needs the conflict policy said). */
type OrderStart = WorkflowStartOptions<OrderFulfilmentWorkflow> & Required<Pick<WorkflowStartOptions, 'workflowIdConflictPolicy'>>;

async function requireOrder(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string): Promise<OrderWithDetails> {
  return (await findOrder(deps.db, clientId, id)) ?? Promise.reject(notFound('order'));
}

/**
 * Places the order through its workflow and returns it with its vouchers. The same order_number
 * again is a duplicate (with the existing order's id), unless that order was refused.
 */
export async function placeOrder(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'config' | 'metrics' | 'localWorker'>,
  clientId: string,
  o: OrderCreate,
  siteBase: string,
): Promise<OrderView> {
  const { config } = deps;
  if (o.account_id) {
    // Refused before any workflow starts; the placing activity counts the refusals it decides itself.
    try {
      requireActiveAccount(o.account_id, await findAccount(deps.db, clientId, o.account_id));
    } catch (err) {
      if (err instanceof Failure) deps.metrics.orderRefused(err.details[0].code);
      throw err;
    }
  }
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
      customerReference: o.customer_reference ?? null,
      shippingAddress: o.shipping_address ?? null,
      items: o.items,
    },
  };
  const start: OrderStart = {
    workflowId,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [input],
    workflowIdConflictPolicy: 'FAIL',
    // A refused order ends failed, so its order_number may be used again; a placed one never.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
  };
  const late = {
    message: `order ${orderId} is still being placed; GET /orders/${orderId} or retry the same POST (it is idempotent by order_number)`,
    order_id: orderId,
  };
  const local = deps.localWorker;
  const eager = local?.client && local.taskQueue === config.TEMPORAL_TASK_QUEUE ? local.client : undefined;
  // Listening before the start: an eager first task may commit before the start call returns.
  const sharded = config.ORDER_INTAKE === 'sharded';
  const notice = eager && !sharded ? local!.placed.listen(workflowId) : undefined;
  const place = sharded
    ? () => placeThroughIntake(deps, { ...input.order, workflowId })
    : eager
      ? () => placeEagerly(deps, eager, start, notice!.next)
      : () => placeWithUpdate(deps, start);
  try {
    const placed = await withinDeadline(eager ?? deps.temporal, place, config.WORKFLOW_ANSWER_TIMEOUT_SECONDS, late);
    if (!placed.ok) throw refusalFailure(placed);
    // The workflow answers with the order as placing wrote it, unless it was too large to carry
    // (or the answer is from before snapshots: see PlacedAnswer). Otherwise it is read.
    // A snapshot from a worker older than gift-card balances lacks them: then the order is read.
    if ('orderSnapshot' in placed && placed.orderSnapshot.vouchers.every((v) => v.redemptions))
      return toOrder(placed.orderSnapshot, siteBase);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      throw conflict('duplicate', `order_number ${o.order_number} is already used by order ${orderId}`, {
        field: 'order_number',
        order_id: orderId,
      });
    }
    throw err;
  } finally {
    notice?.stop();
  }
  return getOrder(deps, clientId, orderId, siteBase);
}

/** Starts the order's workflow with the `placed` Update, which answers once the order is placed or refused. */
async function placeWithUpdate(deps: Pick<ServiceDeps, 'temporal' | 'metrics'>, start: OrderStart): Promise<PlacedAnswer> {
  const startWorkflowOperation = new WithStartWorkflowOperation(ORDER_WORKFLOW_TYPE, start);
  const answer = await deps.temporal.workflow.executeUpdateWithStart(placedUpdate, { startWorkflowOperation });
  deps.metrics.orderAnswered('update_with_start');
  return answer;
}

/**
 * How long an eagerly started order waits for its placing activity's notice before it asks the
 * workflow with the `placed` Update instead. The notice normally comes within milliseconds; it
 * never comes when the task ran in another process (the server declined eager start and another
 * worker polled it, or this process's task failed and was retried elsewhere).
 */
const NOTICE_WAIT_MS = 2_000;

/**
 * Starts the order's workflow asking for eager start on the worker of this process, so its first
 * task (the placing local activity) runs here without a matching round trip, and answers when the
 * placing activity commits (its in-process notice). Update-with-Start cannot be eager (the server
 * refuses the combination), so the `placed` Update is the fallback: when no notice comes in time,
 * it asks the workflow as the Update-with-Start path does.
 */
async function placeEagerly(
  deps: Pick<ServiceDeps, 'metrics'>,
  client: Client,
  start: OrderStart,
  notice: Promise<PlacedAnswer>,
): Promise<PlacedAnswer> {
  const handle = await client.workflow.start<OrderFulfilmentWorkflow>(ORDER_WORKFLOW_TYPE, { ...start, requestEagerStart: true });
  let timer: NodeJS.Timeout | undefined;
  const asked = new Promise<'ask'>((resolve) => (timer = setTimeout(() => resolve('ask'), NOTICE_WAIT_MS)));
  const first = await Promise.race([notice, asked]).finally(() => clearTimeout(timer));
  // Past the wait, the Update asks the workflow; the notice may still win while it is on its way.
  const answer = first === 'ask' ? await Promise.race([notice, placedByUpdate(handle)]) : first;
  const via = first === 'ask' ? 'update' : 'notice';
  deps.metrics.orderAnswered(handle.eagerlyStarted ? `eager_${via}` : via);
  // A refused order's workflow fails right after placing answers: answer once it has, so that the
  // order_number is free again (ALLOW_DUPLICATE_FAILED_ONLY) for the corrected retry it invites.
  if (!answer.ok) await handle.result().catch(() => undefined);
  return answer;
}

/**
 * The `placed` Update on a started order workflow. A workflow that has already ended (placed and
 * closed before the Update arrived) answers from its result instead: the order is then read.
 */
async function placedByUpdate(handle: WorkflowHandle<OrderFulfilmentWorkflow>): Promise<PlacedAnswer> {
  try {
    return await handle.executeUpdate(placedUpdate);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  try {
    const { orderId } = await handle.result();
    return { ok: true, orderId, issued: 0 };
  } catch (err) {
    // A refused order's workflow fails with its refusal.
    const refusal = err instanceof WorkflowFailedError ? refusalCarried(err.cause) : undefined;
    if (refusal) return refusal;
    throw err;
  }
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
    temporal,
    (waitForStage) => temporal.workflow.startUpdateWithStart(cancelledUpdate, { startWorkflowOperation, waitForStage }),
    config.WORKFLOW_ANSWER_TIMEOUT_SECONDS,
    {
      accepted: { message: `order ${order.id} is being cancelled; ${at} shows it cancelled once it is`, order_id: order.id },
      unconfirmed: {
        message: `the cancellation of order ${order.id} could not be confirmed in time; ${at}, or retry the same PUT`,
        order_id: order.id,
      },
    },
    'the order could not be cancelled; retry',
  );
  if (!cancelled.ok) throw refusalFailure(cancelled);
  return getOrder(deps, clientId, order.id, siteBase);
}

/** Where to look in Temporal for an order placed through the sharded intake. */
type IntakeHandling = { intake_workflow_id: string; intake_update_id: string };

/**
 * Any client's order, with who placed it and its workflow: for operators (admin CLI), never the
 * API. An order placed through the sharded intake (it has a request id) names its intake workflow
 * (computed with this configuration's ORDER_INTAKE_SHARDS and task queue) and its update id;
 * `workflow_id` is then the order's key, not a workflow of its own.
 */
export async function findOrderForOperator(
  deps: Pick<ServiceDeps, 'db' | 'config'>,
  orderId: string,
  siteBase: string,
): Promise<(OrderView & { client_id: string; workflow_id: string } & Partial<IntakeHandling>) | undefined> {
  const row = await findAnyOrder(deps.db, orderId);
  if (!row) return undefined;
  const intake = row.request_id ? intakeLocation(deps.config, row.client_id, row.order_number, row.request_id) : undefined;
  return {
    client_id: row.client_id,
    workflow_id: row.workflow_id,
    ...(intake ? { intake_workflow_id: intake.workflowId, intake_update_id: intake.updateId } : {}),
    ...toOrder(row, siteBase),
  };
}
