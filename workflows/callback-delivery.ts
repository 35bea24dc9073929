import { condition, continueAsNew, proxyActivities, setHandler, setWorkflowOptions, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { wakeSignal, type CallbackDeliveryInput } from './callback-delivery-messages';
import { STEP_RETRY } from './shared/step-policy';
import { LONG_LIVED } from './shared/versioning';

/** A lane with nothing to send waits this long for more before its workflow ends. */
const IDLE_TIMEOUT = '10 minutes';
/** Deliveries per run before continue-as-new, so histories stay small. */
const DELIVERIES_PER_RUN = 50;

/**
 * Delivers one offer's events to one endpoint, strictly in order: the next delivery starts only
 * when the previous one is delivered or has given up. Retries are this loop, not an activity retry
 * policy, because the schedule is a list of fixed waits (CALLBACK_RETRY_SCHEDULE, as Svix's),
 * which backoff cannot express; each attempt is one activity, visible in the Temporal UI.
 */
export async function callbackDeliveryWorkflow(input: CallbackDeliveryInput): Promise<void> {
  const acts = proxyActivities<Activities>({
    startToCloseTimeout: `${input.attemptTimeoutSeconds + 15}s`,
    // Only our own faults (database down, worker lost) throw; a receiver's failure is a result.
    retry: STEP_RETRY,
  });
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  const lane = { endpointId: input.endpointId, offerId: input.offerId };
  for (let handled = 0; handled < DELIVERIES_PER_RUN && !workflowInfo().continueAsNewSuggested;) {
    woken = false;
    const next = await acts.nextCallbackDelivery(lane);
    if (!next) {
      if (await condition(() => woken, IDLE_TIMEOUT)) continue;
      return;
    }
    if (next.busy) {
      // The dispatcher is making this delivery's first attempt itself (fan-out fast path); it wakes
      // the lane when done, and the lease's end is the bound if it crashed. Histories from before
      // the fast path never return `busy`, so they replay unchanged without a patch.
      await condition(() => woken, next.waitSeconds * 1000);
      continue;
    }
    if (next.waitSeconds > 0) await sleep(next.waitSeconds * 1000);
    await deliver(acts, next.deliveryId);
    handled++;
  }
  await continueAsNew<typeof callbackDeliveryWorkflow>(input);
}
setWorkflowOptions(LONG_LIVED, callbackDeliveryWorkflow);

/** Attempts one delivery until it is delivered, fails for good, or is cancelled; waits between attempts are durable timers. */
async function deliver(acts: Activities, deliveryId: string): Promise<void> {
  for (;;) {
    const r = await acts.attemptCallbackDelivery({ deliveryId });
    if (r.outcome !== 'retry') return;
    await sleep(r.retryInSeconds * 1000);
  }
}
