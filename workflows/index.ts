// The worker's workflowsPath: every workflow of the service, one file per business process.
export { offerReviewWorkflow } from './offer-review';
export * from './callback-delivery';
export * from './callback-dispatcher';
