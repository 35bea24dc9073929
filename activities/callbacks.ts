import type { Client } from '@temporalio/client';
import type { Config } from '../infra/config';
import type { DeliveryLane } from '../store/callbacks';
import { CALLBACK_DELIVERY_WORKFLOW_TYPE, wakeSignal, type CallbackDeliveryWorkflow } from '../workflows/callback-delivery-messages';
import { callbackDeliveryWorkflowId } from '../workflows/shared/ids';
import { createCallbackDeliveryActivities } from './callbacks/delivery';
import { createCallbackDispatcherActivities } from './callbacks/dispatcher';
import type { ActivityDeps } from './deps';

export type { AttemptOutcome } from './callbacks/delivery';

/** Starts (or wakes) the delivery workflow of one (endpoint, offer) lane, through its contract. Idempotent. */
export async function wakeLane(
  temporal: Client,
  taskQueue: string,
  config: Pick<Config, 'CALLBACK_TIMEOUT_SECONDS'>,
  lane: DeliveryLane,
): Promise<void> {
  await temporal.workflow.signalWithStart<CallbackDeliveryWorkflow, []>(CALLBACK_DELIVERY_WORKFLOW_TYPE, {
    workflowId: callbackDeliveryWorkflowId(lane.endpointId, lane.offerId),
    taskQueue,
    args: [{ ...lane, attemptTimeoutSeconds: config.CALLBACK_TIMEOUT_SECONDS }],
    signal: wakeSignal,
    signalArgs: [],
  });
}

/** The callback activities: the outbox pump (dispatcher) and the per-lane delivery steps. */
export function createCallbackActivities(deps: Pick<ActivityDeps, 'db' | 'config' | 'temporal' | 'log' | 'stopping'>) {
  return {
    ...createCallbackDispatcherActivities(deps, wakeLane),
    ...createCallbackDeliveryActivities(deps),
  };
}
