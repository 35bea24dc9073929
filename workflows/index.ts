// The worker's workflowsPath: every workflow of the service, one file per business process.
export { offerReviewWorkflow } from './offer-review';
export { callbackDeliveryWorkflow } from './callback-delivery';
export { callbackDispatcherWorkflow } from './callback-dispatcher';
export { orderCancellationWorkflow } from './order-cancellation';
export { reservationWindowWorkflow } from './reservation-window';
export { orderIntakeWorkflow } from './order-intake';
export { monthlyStatementsWorkflow } from './monthly-statements';
export { idempotencyKeyPruningWorkflow } from './idempotency-key-pruning';
export { dataPruningWorkflow } from './data-pruning';
export { voucherImportWorkflow } from './voucher-import';
export { voucherExportWorkflow } from './voucher-export';
export { offerImportWorkflow } from './offer-import';
