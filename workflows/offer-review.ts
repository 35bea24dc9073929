import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { endOfUtcDayMs, startOfUtcDayMs } from '../domain/dates';
import { clientMoveError, editError, reviewError, SELLABLE, TERMINAL, type OfferStatus } from '../domain/offer-lifecycle';
import {
  approveSignal,
  changeStatusUpdate,
  editOfferUpdate,
  rejectSignal,
  reviewTimelineQuery,
  statusQuery,
  TIMELINE_LIMIT,
  type OfferReviewInput,
  type OfferReviewResult,
  type ReviewDecision,
  type ReviewTimelineEntry,
} from './offer-review-messages';
import { OfferStatusKey } from './shared/search-attributes';
import { WorkQueue } from './shared/work-queue';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
const clock = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds' });

/**
 * The wall-clock time timers are measured against (calendar dates). In the workflow sandbox
 * Date.now() is deterministic: it is the current workflow task's start time, recorded in history.
 * Workflows started before this change read the time from the `currentTimeMs` local activity; the
 * patch keeps their histories replaying with the activity (which therefore stays registered).
 */
async function nowMs(): Promise<number> {
  return patched('workflow-clock') ? Date.now() : await clock.currentTimeMs();
}

/**
 * When an offer moving to `to` must wait for its start_date to be published: that day's start, or
 * null (publish now, or nothing to publish). Workflows started before the 'publish-at-start-date'
 * patch have no startDate and keep publishing on approval, as their histories recorded.
 */
async function publishDeferredTo(to: OfferStatus, startDate: string | undefined): Promise<number | null> {
  if (startDate === undefined || !SELLABLE.includes(to) || !patched('publish-at-start-date')) return null;
  const startMs = startOfUtcDayMs(startDate);
  return startMs > (await nowMs()) ? startMs : null;
}

/** One offer's life: review, client moves, edits, reminders, publication at start_date and closing at end_date. */
export async function offerReviewWorkflow(input: OfferReviewInput): Promise<OfferReviewResult> {
  const { offerId } = input;
  let { status, endDate, startDate } = input;
  let step = input.step ?? 0;
  let reminderDueAtMs = input.reminderDueAtMs ?? null;
  let publishDueAtMs = input.publishDueAtMs ?? null;
  const work = new WorkQueue();
  const key = () => `${workflowInfo().workflowId}:${step++}`;
  // Operators' view of the review, answered by reviewTimelineQuery. Recording it issues no command,
  // so histories from before it existed replay unchanged (and rebuild it as they replay).
  const timeline: ReviewTimelineEntry[] = input.timeline ?? [];
  const note = (entry: DistributiveOmit<ReviewTimelineEntry, 'at'>) => {
    timeline.push({ ...entry, at: new Date().toISOString() } as ReviewTimelineEntry);
    if (timeline.length > TIMELINE_LIMIT) timeline.splice(0, timeline.length - TIMELINE_LIMIT);
  };
  if (!input.timeline) note({ kind: 'started', status, resumed: input.step !== undefined });

  const moveTo = async (to: OfferStatus, actor: 'advertiser' | 'review_team' | 'system', decision: ReviewDecision = {}) => {
    const deferredTo = await publishDeferredTo(to, startDate);
    await acts.recordOfferStatus({
      key: key(),
      offerId,
      to,
      actor,
      reason: decision.reason,
      reviewer: decision.reviewer,
      ...(startDate !== undefined && SELLABLE.includes(to) ? { publishDeferred: deferredTo !== null } : {}),
    });
    publishDueAtMs = deferredTo;
    status = to;
    note({ kind: 'status', to, actor, reviewer: decision.reviewer, reason: decision.reason });
    upsertSearchAttributes([{ key: OfferStatusKey, value: to }]);
    reminderDueAtMs = to === 'pending' ? (await nowMs()) + input.reviewReminderSeconds * 1000 : null;
  };
  const decide = (to: 'approved' | 'rejected', decision: ReviewDecision = {}) =>
    work.run(async () => {
      const refused = reviewError(status);
      // A signal cannot answer; the CLI checks first, so this only catches races and stray signals.
      if (refused) {
        note({ kind: 'ignored', decision: to, reviewer: decision.reviewer, refused });
        return log.warn('review decision ignored', { offerId, decision: to, refused });
      }
      await moveTo(to, 'review_team', decision);
    });

  setHandler(statusQuery, () => status);
  setHandler(reviewTimelineQuery, () => timeline);
  setHandler(approveSignal, (d) => void decide('approved', d));
  setHandler(rejectSignal, (d) => void decide('rejected', d));
  setHandler(
    changeStatusUpdate,
    ({ to }) =>
      work.run(async () => {
        const refused = clientMoveError(status, to);
        if (refused) throw ApplicationFailure.nonRetryable(refused, 'InvalidTransition');
        await moveTo(to, 'advertiser');
        return status;
      }),
    { validator: ({ to }) => refuseIf(clientMoveError(status, to)) },
  );
  setHandler(
    editOfferUpdate,
    (edit) =>
      work.run(async () => {
        const refused = editError(status);
        if (refused) throw ApplicationFailure.nonRetryable(refused, 'NotEditable');
        await acts.recordOfferEdit({ key: key(), offerId, input: edit.input, changedFields: edit.changedFields });
        endDate = edit.input.end_date;
        note({ kind: 'edited', changedFields: edit.changedFields });
        if (startDate !== undefined) startDate = edit.input.start_date;
      }),
    { validator: (_edit) => refuseIf(editError(status)) },
  );

  if (status === 'pending' && input.reminderDueAtMs === undefined) reminderDueAtMs = (await nowMs()) + input.reviewReminderSeconds * 1000;
  while (!TERMINAL.includes(status)) {
    const now = await nowMs();
    const due = Math.min(endOfUtcDayMs(endDate), reminderDueAtMs ?? Infinity, publishDueAtMs ?? Infinity);
    const woken = await condition(() => work.hasWork() || workflowInfo().continueAsNewSuggested, Math.max(due - now, 1));
    if (work.hasWork()) {
      await work.drain();
    } else if (woken) {
      await condition(allHandlersFinished);
      if (!work.hasWork())
        return continueAsNew<typeof offerReviewWorkflow>({
          ...input,
          status,
          endDate,
          startDate,
          step,
          reminderDueAtMs,
          publishDueAtMs,
          timeline,
        });
    } else if ((await nowMs()) >= endOfUtcDayMs(endDate)) {
      await moveTo('closed', 'system');
    } else if (publishDueAtMs !== null && (await nowMs()) >= publishDueAtMs) {
      publishDueAtMs = null;
      await acts.publishOffer({ key: key(), offerId });
    } else if (reminderDueAtMs !== null && status === 'pending') {
      await acts.recordReviewOverdue({ key: key(), offerId, waitingSeconds: input.reviewReminderSeconds });
      note({ kind: 'reminder', waitingSeconds: input.reviewReminderSeconds });
      reminderDueAtMs = null; // one reminder per review round
    }
  }
  await condition(allHandlersFinished);
  return status;
}

/** Update validators refuse before anything is written to history; the API answers invalid_state_transition. */
function refuseIf(message: string | undefined): void {
  if (message) throw ApplicationFailure.nonRetryable(message, 'InvalidTransition');
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
