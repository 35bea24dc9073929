import { continueAsNew, proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CallbackDispatcherInput } from './callback-dispatcher-messages';
import { LONG_LIVED } from './shared/versioning';

const PUMPS_PER_RUN = 100;

/**
 * The singleton that turns outbox events (offer_events) into deliveries and wakes their lanes.
 * The polling happens inside a long, heartbeating activity rather than as workflow timers, so the
 * history grows by one activity a minute, and it continues as new every hundred.
 */
export async function callbackDispatcherWorkflow(input: CallbackDispatcherInput = {}): Promise<void> {
  const runForMs = input.runForMs ?? 60_000;
  const { pumpCallbackOutbox } = proxyActivities<Activities>({
    startToCloseTimeout: runForMs + 60_000,
    // A lost worker is noticed within the heartbeat timeout and the pump restarts elsewhere.
    heartbeatTimeout: '20s',
    // The one unbounded retry (issue 19; POLLER_ACTIVITIES in shared/step-policy.ts): the pump is the
    // outbox's poller, not a step on a request's data, and giving up would stop every callback. Its
    // failing attempts past the threshold show in activity_attempts_stuck_total and `workflows stuck`.
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
  });
  for (let i = 0; i < PUMPS_PER_RUN; i++) await pumpCallbackOutbox({ runForMs, pollMs: input.pollMs ?? 500 });
  await continueAsNew<typeof callbackDispatcherWorkflow>(input);
}
setWorkflowOptions(LONG_LIVED, callbackDispatcherWorkflow);
