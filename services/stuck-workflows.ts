import type { WorkflowExecutionInfo } from '@temporalio/client';
import { endOfUtcDayMs, utcDay } from '../domain/dates';
import { countActiveReservationsEndedBefore, reservationWindows } from '../store/reservations';
import { CALLBACK_DELIVERY_WORKFLOW_TYPE } from '../workflows/callback-delivery-messages';
import { CALLBACK_DISPATCHER_WORKFLOW_TYPE } from '../workflows/callback-dispatcher-messages';
import { MONTHLY_STATEMENTS_WORKFLOW_TYPE } from '../workflows/monthly-statements-messages';
import { DATA_PRUNING_WORKFLOW_TYPE } from '../workflows/data-pruning-messages';
import { IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE } from '../workflows/idempotency-key-pruning-messages';
import { OFFER_REVIEW_WORKFLOW_TYPE } from '../workflows/offer-review-messages';
import { ORDER_CANCELLATION_WORKFLOW_TYPE } from '../workflows/order-cancellation-messages';
import { ORDER_INTAKE_WORKFLOW_TYPE } from '../workflows/order-intake-messages';
import { RESERVATION_WORKFLOW_TYPE } from '../workflows/reservation-window-messages';
import { reservationWorkflowId } from '../workflows/shared/ids';
import { STUCK_AFTER_ATTEMPTS } from '../workflows/shared/step-policy';
import type { ServiceDeps } from './deps';

/*
 * Stuck work, for operators (docs/operations.md, "Stuck workflows"): a running workflow older than
 * its business process allows, or one whose activity is still retrying past a number of attempts.
 */

const MINUTE = 60_000;

/** The attempts after which the worker logs and counts a failing activity: the listing's default. */
export { STUCK_AFTER_ATTEMPTS };

/** How long one run of each process may take; null: unbounded, listed only for a retrying activity. */
export const MAX_AGE_MS: Readonly<Record<string, number | null>> = {
  // A cancellation answers in seconds and the run ends once the order is cancelled.
  [ORDER_CANCELLATION_WORKFLOW_TYPE]: 15 * MINUTE,
  // An intake run lives until it has taken ORDER_INTAKE_ORDERS_PER_RUN orders:
  // days, by design, while orders are few. A fault in it shows as an activity retrying instead.
  [ORDER_INTAKE_WORKFLOW_TYPE]: null,
  // One run pumps the outbox a hundred times, a minute each, then continues as new.
  [CALLBACK_DISPATCHER_WORKFLOW_TYPE]: 180 * MINUTE,
  // An offer's review lives as long as the offer; its timers close it at end_date.
  [OFFER_REVIEW_WORKFLOW_TYPE]: null,
  // A lane's retry schedule (CALLBACK_RETRY_SCHEDULE) spans a day per delivery, by design.
  [CALLBACK_DELIVERY_WORKFLOW_TYPE]: null,
  // A run stores at most ten pages of a hundred clients' statements, four at a time, then continues as new.
  [MONTHLY_STATEMENTS_WORKFLOW_TYPE]: 360 * MINUTE,
  // At most 50 short deletes (IDEMPOTENCY_PRUNE_MAX_BATCHES), hourly.
  [IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE]: 30 * MINUTE,
  // At most 200 short deletes (PRUNE_MAX_BATCHES of each kind), hourly.
  [DATA_PRUNING_WORKFLOW_TYPE]: 60 * MINUTE,
};

/** A reservation window runs until its end_date is over; past that by this much it is stuck. */
export const RESERVATION_MARGIN_MS = 60 * MINUTE;

export interface StuckWorkflow {
  workflow_id: string;
  run_id: string;
  type: string;
  started_at: string;
  age_seconds: number;
  /** past_max_age: older than its process allows; activity_retrying: an activity past the attempts given. */
  reasons: Array<'past_max_age' | 'activity_retrying'>;
  /** When its process should have ended (ISO 8601), if it has such a bound. */
  due_by: string | null;
  pending_activity: string | null;
  attempt: number | null;
  last_failure: string | null;
}

export interface StuckListing {
  workflows: StuckWorkflow[];
  /** Running workflows looked at; `truncated` when more were running than `scanLimit`. */
  scanned: number;
  truncated: boolean;
}

type Deps = Pick<ServiceDeps, 'db' | 'temporal'>;

/** Running workflows that are stuck: past their process's age, or with an activity retrying more than `attempts` times. */
export async function listStuckWorkflows(deps: Deps, opts: { attempts: number; scanLimit: number; now?: number }): Promise<StuckListing> {
  const now = opts.now ?? Date.now();
  const running: WorkflowExecutionInfo[] = [];
  let truncated = false;
  for await (const wf of deps.temporal.workflow.list({ query: "ExecutionStatus = 'Running'" })) {
    if (running.length === opts.scanLimit) {
      truncated = true;
      break;
    }
    running.push(wf);
  }
  const dueBy = await deadlines(deps, running);
  const workflows: StuckWorkflow[] = [];
  // A few describes at a time: one round trip each, without flooding the server.
  for (let i = 0; i < running.length; i += 8) {
    const batch = await Promise.all(
      running.slice(i, i + 8).map((wf) => inspect(deps, wf, dueBy.get(wf.workflowId) ?? null, opts.attempts, now)),
    );
    for (const s of batch) if (s) workflows.push(s);
  }
  workflows.sort((a, b) => b.age_seconds - a.age_seconds);
  return { workflows, scanned: running.length, truncated };
}

/** When each workflow's process should have ended: its start plus its type's age, or a reservation's end_date plus margin. */
async function deadlines(deps: Deps, running: WorkflowExecutionInfo[]): Promise<Map<string, number>> {
  const due = new Map<string, number>();
  const reservations = new Map<string, string>();
  for (const wf of running) {
    const maxAge = MAX_AGE_MS[wf.type];
    if (maxAge) due.set(wf.workflowId, wf.startTime.getTime() + maxAge);
    if (wf.type === RESERVATION_WORKFLOW_TYPE) reservations.set(wf.workflowId.replace(/^reservation:/, ''), wf.workflowId);
  }
  for (const r of await reservationWindows(deps.db, [...reservations.keys()])) {
    due.set(reservationWorkflowId(r.id), endOfUtcDayMs(r.end_date) + RESERVATION_MARGIN_MS);
  }
  return due;
}

/** One workflow, described: listed when past its deadline or when an activity has failed more than `attempts` times. */
async function inspect(
  deps: Deps,
  wf: WorkflowExecutionInfo,
  dueBy: number | null,
  attempts: number,
  now: number,
): Promise<StuckWorkflow | null> {
  const reasons: StuckWorkflow['reasons'] = [];
  if (dueBy !== null && now > dueBy) reasons.push('past_max_age');
  const described = await deps.temporal.workflow
    .getHandle(wf.workflowId, wf.runId)
    .describe()
    .catch(() => undefined); // ended between the list and now
  if (!described) return null;
  const pending = [...(described.raw.pendingActivities ?? [])].sort((a, b) => (b.attempt ?? 0) - (a.attempt ?? 0))[0];
  if (pending && (pending.attempt ?? 0) > attempts) reasons.push('activity_retrying');
  if (reasons.length === 0) return null;
  return {
    workflow_id: wf.workflowId,
    run_id: wf.runId,
    type: wf.type,
    started_at: wf.startTime.toISOString(),
    age_seconds: Math.round((now - wf.startTime.getTime()) / 1000),
    reasons,
    due_by: dueBy === null ? null : new Date(dueBy).toISOString(),
    pending_activity: pending?.activityType?.name ?? null,
    attempt: pending?.attempt ?? null,
    last_failure: pending?.lastFailure?.message ?? null,
  };
}

/**
 * For the `workflows_stuck` gauge at scrape time, cheap: one visibility count per type with a
 * fixed age, and the reservations still active a day after their end_date (their window did not
 * close). Activities retrying are counted by the worker (activity_attempts_stuck_total).
 */
export async function countStuckWorkflows(deps: Deps, now = Date.now()): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const fixed = Object.entries(MAX_AGE_MS).filter((e): e is [string, number] => e[1] !== null);
  await Promise.all(
    fixed.map(async ([type, maxAge]) => {
      const before = new Date(now - maxAge).toISOString();
      const query = `WorkflowType = '${type}' AND ExecutionStatus = 'Running' AND StartTime < '${before}'`;
      counts[type] = (await deps.temporal.workflow.count(query)).count;
    }),
  );
  counts[RESERVATION_WORKFLOW_TYPE] = await countActiveReservationsEndedBefore(deps.db, utcDay(new Date(now - RESERVATION_MARGIN_MS)));
  return counts;
}
