import { createCallbackDeliveryActivities } from './callbacks/delivery';
import { createCallbackDispatcherActivities } from './callbacks/dispatcher';
import type { ActivityDeps } from './deps';

export type { AttemptOutcome } from './callbacks/delivery';

/** The callback activities: the outbox pump (dispatcher) and the per-lane delivery steps. */
export function createCallbackActivities(deps: Pick<ActivityDeps, 'db' | 'config' | 'temporal' | 'log' | 'stopping' | 'metrics'>) {
  return {
    ...createCallbackDispatcherActivities(deps),
    ...createCallbackDeliveryActivities(deps),
  };
}
