/**
 * Workflow ids are business keys, built only here: the API, the admin CLI and the tests find a
 * workflow from the resource's id, and nobody stores run ids.
 */
export const offerReviewWorkflowId = (offerId: string) => `offer-review:${offerId}`;

/** One delivery workflow per (callback endpoint, offer): that offer's events reach that endpoint in order. */
export const callbackDeliveryWorkflowId = (endpointId: string, offerId: string) => `callback-delivery:${endpointId}:${offerId}`;

/**
 * The outbox dispatcher, one per task queue (in a deployment: one). The task queue is in the id so
 * that test files, each on its own queue against one Temporal server, each get their own.
 */
export const callbackDispatcherWorkflowId = (taskQueue: string) => `callback-dispatcher:${taskQueue}`;
export const reservationWorkflowId = (reservationId: string) => `reservation:${reservationId}`;
/** One cancellation per order at a time: concurrent cancel requests join the same run. */
export const orderCancellationWorkflowId = (orderId: string) => `order-cancellation:${orderId}`;

/**
 * The order intake: one long-running intake workflow per shard and task queue (the queue in the id
 * as for the dispatcher: test files share one server).
 */
export const orderIntakeWorkflowId = (taskQueue: string, shard: number) => `order-intake:${taskQueue}:${shard}`;

/**
 * The shard of an order: a stable hash (32-bit FNV-1a over the UTF-16 code units; no Node
 * built-ins here) of its first offer by id, modulo the number of shards. Orders of one offer meet
 * at one intake workflow, where they are placed together, a batch's orders in one transaction that
 * takes the offer's row lock once, instead of several shards' transactions queueing on that lock
 * (docs/decisions/0083-orders-of-an-offer-meet.md); orders of other offers spread over the shards.
 * Stable across processes and releases: an order's retries (the same items) meet at one workflow.
 */
export function orderIntakeShard(offerIds: readonly string[], shards: number): number {
  const key = offerIds.reduce((first, id) => (id < first ? id : first));
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/**
 * The request id of the `index`th order of a `placeOrders` Update (services/order-intake.ts): the
 * batch's id (a UUID, one per Update) and the order's place in it. Unique per HTTP request (each
 * request's order is in one batch, resends included), and it names the Update that carried it, so
 * an operator finds it from the order row alone (intakeUpdateIdOf).
 */
export const intakeBatchRequestId = (batchId: string, index: number) => `${batchId}/${index}`;

/** The update id of a `placeOrders` Update: one per batch, reused by the client SDK's own retries and by resends. */
export const intakeBatchUpdateId = (batchId: string) => `orders:${batchId}`;

/** The update id under which the order with this request id (intakeBatchRequestId) reached its intake workflow. */
export const intakeUpdateIdOf = (requestId: string) => intakeBatchUpdateId(requestId.slice(0, requestId.lastIndexOf('/')));
/** The schedule that starts the monthly statements on the 1st (one per task queue, as the dispatcher). */
export const monthlyStatementsScheduleId = (taskQueue: string) => `monthly-statements-schedule:${taskQueue}`;
/** One run per month at a time (an operator's run and the schedule's of the same month join one another). */
export const monthlyStatementsWorkflowId = (taskQueue: string, month: string) => `monthly-statements:${taskQueue}:${month}`;
/** The id the schedule gives the runs it starts (Temporal appends the time of each start). */
export const monthlyStatementsScheduledWorkflowId = (taskQueue: string) => `monthly-statements:${taskQueue}:scheduled`;
/** The schedule that prunes expired Idempotency-Keys every hour (one per task queue, as the statements'). */
export const idempotencyKeyPruningScheduleId = (taskQueue: string) => `idempotency-key-pruning-schedule:${taskQueue}`;
/** The id the pruning schedule gives the runs it starts (Temporal appends the time of each start). */
export const idempotencyKeyPruningScheduledWorkflowId = (taskQueue: string) => `idempotency-key-pruning:${taskQueue}:scheduled`;
/** The schedule that prunes old feed events and callback deliveries every hour (one per task queue, as the statements'). */
export const dataPruningScheduleId = (taskQueue: string) => `data-pruning-schedule:${taskQueue}`;
/** The id the data-pruning schedule gives the runs it starts (Temporal appends the time of each start). */
export const dataPruningScheduledWorkflowId = (taskQueue: string) => `data-pruning:${taskQueue}:scheduled`;
/** One workflow per bulk code import (docs/bulk-vouchers.md). */
export const voucherImportWorkflowId = (importId: string) => `voucher-import:${importId}`;

/** One workflow per voucher export, and per offer import: found from the resource's id. */
export const voucherExportWorkflowId = (exportId: string) => `voucher-export:${exportId}`;
export const offerImportWorkflowId = (importId: string) => `offer-import:${importId}`;
