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
/** One order per (distribution client, order_number): a retried POST can never fulfil it twice. */
export const orderWorkflowId = (clientId: string, orderNumber: string) => `order:${clientId}:${orderNumber}`;
export const reservationWorkflowId = (reservationId: string) => `reservation:${reservationId}`;
/** One cancellation per order at a time: concurrent cancel requests join the same run. */
export const orderCancellationWorkflowId = (orderId: string) => `order-cancellation:${orderId}`;
/** The schedule that starts the monthly statements on the 1st (one per task queue, as the dispatcher). */
export const monthlyStatementsScheduleId = (taskQueue: string) => `monthly-statements-schedule:${taskQueue}`;
/** One run per month at a time (an operator's run and the schedule's of the same month join one another). */
export const monthlyStatementsWorkflowId = (taskQueue: string, month: string) => `monthly-statements:${taskQueue}:${month}`;
