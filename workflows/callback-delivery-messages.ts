import { defineSignal } from '@temporalio/workflow';

/*
 * The callback-delivery workflow's contract, apart from its code: the dispatcher activity and the
 * admin replay start or wake a lane's workflow through these definitions only.
 */

export const CALLBACK_DELIVERY_WORKFLOW_TYPE = 'callbackDeliveryWorkflow';

/** Sent by the dispatcher (signalWithStart) when the lane has new deliveries; carries nothing: Postgres holds the work. */
export const wakeSignal = defineSignal('wake');

export interface CallbackDeliveryInput {
  endpointId: string;
  offerId: string;
  /** CALLBACK_TIMEOUT_SECONDS: the POST's own deadline; the activity gets a little more. */
  attemptTimeoutSeconds: number;
}

/** The workflow's signature, for typed starts without importing its code. */
export type CallbackDeliveryWorkflow = (input: CallbackDeliveryInput) => Promise<void>;
