/**
 * Workflow ids are business keys, built only here: the API, the admin CLI and the tests find a
 * workflow from the resource's id, and nobody stores run ids.
 */
export const offerReviewWorkflowId = (offerId: string) => `offer-review:${offerId}`;
/** One order per (distribution client, order_number): a retried POST can never fulfil it twice. */
export const orderWorkflowId = (clientId: string, orderNumber: string) => `order:${clientId}:${orderNumber}`;
export const reservationWorkflowId = (reservationId: string) => `reservation:${reservationId}`;
