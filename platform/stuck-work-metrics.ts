import { counter, gauge } from './metrics';

/*
 * Stuck work, for operators (docs/operations.md, "Stuck workflows"): activities still failing after
 * the stuck threshold of attempts, and workflows older than their business process allows.
 */

const activityAttemptsStuck = counter(
  'activity_attempts_stuck_total',
  'activity attempts that failed after the stuck threshold of attempts (STUCK_AFTER_ATTEMPTS), by activity type',
  ['activity'],
);
const workflowsStuck = gauge(
  'workflows_stuck',
  'running workflows older than their process allows, by type (activities past the stuck threshold: activity_attempts_stuck_total)',
  ['type'],
);

/** An activity attempt past the threshold failed (counted by the worker's interceptor). */
export function activityAttemptStuck(activity: string): void {
  activityAttemptsStuck.inc({ activity });
}

/** Sets the scrape-time gauge; types with nothing stuck read 0 once seen. */
export function observeStuckWorkflows(byType: Record<string, number>): void {
  workflowsStuck.reset();
  for (const [type, n] of Object.entries(byType)) workflowsStuck.set({ type }, n);
}
