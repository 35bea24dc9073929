import type { WorkflowClient } from '@temporalio/client';
import { defineSignal } from '@temporalio/workflow';
import { callbackDeliveryWorkflowId } from './shared/ids';

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

/**
 * Starts the delivery workflow of one (endpoint, offer) lane, or wakes it if it runs: the
 * dispatcher activity and the admin replay both reach a lane only so. Idempotent.
 */
export async function wakeCallbackLane(
  workflows: Pick<WorkflowClient, 'signalWithStart'>,
  opts: { taskQueue: string; attemptTimeoutSeconds: number },
  lane: { endpointId: string; offerId: string },
): Promise<void> {
  await workflows.signalWithStart<CallbackDeliveryWorkflow, []>(CALLBACK_DELIVERY_WORKFLOW_TYPE, {
    workflowId: callbackDeliveryWorkflowId(lane.endpointId, lane.offerId),
    taskQueue: opts.taskQueue,
    args: [{ ...lane, attemptTimeoutSeconds: opts.attemptTimeoutSeconds }],
    signal: wakeSignal,
    signalArgs: [],
  });
}
