// The worker's workflowsPath: every workflow of the service, one file per business process.
export { offerReviewWorkflow } from './offer-review';
export * from './callback-delivery';
export * from './callback-dispatcher';
export { orderFulfilmentWorkflow } from './order-fulfilment';
export { reservationWindowWorkflow } from './reservation-window';
