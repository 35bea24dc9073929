// The worker's workflowsPath: every workflow of the service, one file per business process.
export * from './callback-delivery';
export * from './callback-dispatcher';
