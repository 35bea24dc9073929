// The worker's workflowsPath: every workflow of the service, one file per business process.
export { orderFulfilmentWorkflow } from './order-fulfilment';
export { reservationWindowWorkflow } from './reservation-window';
