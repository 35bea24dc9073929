import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { OfferInput } from '../schemas/offer';
import { clientMoveError, editError, reviewError, TERMINAL, type ClientStatus, type OfferStatus } from '../domain/offer-lifecycle';
import { OfferStatusKey } from './shared/search-attributes';
import { WorkQueue } from './shared/work-queue';

export interface OfferReviewInput {
  offerId: string;
  status: OfferStatus;
  /** Last day the offer runs (YYYY-MM-DD, inclusive); it closes when that day ends (UTC). */
  endDate: string;
  /** How long a review may wait before operators are reminded. */
  reviewReminderSeconds: number;
  /** Carried across continue-as-new. */
  step?: number;
  reminderDueAtMs?: number | null;
}

export interface ReviewDecision {
  reason?: string;
  reviewer?: string;
}

/** The review team's decisions (operators: admin CLI, `temporal workflow signal`, or the UI). */
export const approveSignal = defineSignal<[ReviewDecision?]>('approve');
export const rejectSignal = defineSignal<[ReviewDecision]>('reject');
/** The advertiser's status moves; refused moves fail the update, which the API answers with 409. */
export const changeStatusUpdate = defineUpdate<OfferStatus, [{ to: ClientStatus }]>('changeStatus');
export const editOfferUpdate = defineUpdate<void, [{ input: OfferInput; changedFields: string[] }]>('editOffer');
export const statusQuery = defineQuery<OfferStatus>('status');

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
const clock = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds' });

const DAY_MS = 86_400_000;
const closesAtMs = (endDate: string) => Date.parse(`${endDate}T00:00:00Z`) + DAY_MS;

/** One offer's life: review, client moves, edits, reminders and closing at end_date. */
export async function offerReviewWorkflow(input: OfferReviewInput): Promise<OfferStatus> {
  const { offerId } = input;
  let { status, endDate } = input;
  let step = input.step ?? 0;
  let reminderDueAtMs = input.reminderDueAtMs ?? null;
  const work = new WorkQueue();
  const key = () => `${workflowInfo().workflowId}:${step++}`;

  const moveTo = async (to: OfferStatus, actor: 'advertiser' | 'review_team' | 'system', decision: ReviewDecision = {}) => {
    await acts.recordOfferStatus({ key: key(), offerId, to, actor, reason: decision.reason, reviewer: decision.reviewer });
    status = to;
    upsertSearchAttributes([{ key: OfferStatusKey, value: to }]);
    reminderDueAtMs = to === 'pending' ? (await clock.currentTimeMs()) + input.reviewReminderSeconds * 1000 : null;
  };
  const decide = (to: 'approved' | 'rejected', decision: ReviewDecision = {}) =>
    work.run(async () => {
      const refused = reviewError(status);
      // A signal cannot answer; the CLI checks first, so this only catches races and stray signals.
      if (refused) return log.warn('review decision ignored', { offerId, decision: to, refused });
      await moveTo(to, 'review_team', decision);
    });

  setHandler(statusQuery, () => status);
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
      }),
    { validator: (_edit) => refuseIf(editError(status)) },
  );

  if (status === 'pending' && input.reminderDueAtMs === undefined)
    reminderDueAtMs = (await clock.currentTimeMs()) + input.reviewReminderSeconds * 1000;
  while (!TERMINAL.includes(status)) {
    const now = await clock.currentTimeMs();
    const due = Math.min(closesAtMs(endDate), reminderDueAtMs ?? Infinity);
    const woken = await condition(() => work.hasWork() || workflowInfo().continueAsNewSuggested, Math.max(due - now, 1));
    if (work.hasWork()) {
      await work.drain();
    } else if (woken) {
      await condition(allHandlersFinished);
      if (!work.hasWork()) return continueAsNew<typeof offerReviewWorkflow>({ ...input, status, endDate, step, reminderDueAtMs });
    } else if ((await clock.currentTimeMs()) >= closesAtMs(endDate)) {
      await moveTo('closed', 'system');
    } else if (reminderDueAtMs !== null && status === 'pending') {
      await acts.recordReviewOverdue({ key: key(), offerId, waitingSeconds: input.reviewReminderSeconds });
      reminderDueAtMs = null; // one reminder per review round
    }
  }
  await condition(allHandlersFinished);
  return status;
}

/** Update validators refuse before anything is written to history; the API turns this into a 409. */
function refuseIf(message: string | undefined): void {
  if (message) throw ApplicationFailure.nonRetryable(message, 'InvalidTransition');
}
