import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { DEFAULT_REVIEW_SLA_SECONDS } from '../domain/review-estimate';
import {
  clientMoveError,
  editError,
  reviewError,
  SELLABLE,
  TERMINAL,
  type ClientStatus,
  type OfferStatus,
} from '../domain/offer-lifecycle';
import {
  approveSignal,
  changeStatusUpdate,
  editOfferUpdate,
  rejectSignal,
  reviewDueMovedSignal,
  reviewTimelineQuery,
  statusQuery,
  type OfferEdit,
  type OfferReviewInput,
  type OfferReviewResult,
  type ReviewDecision,
} from './offer-review-messages';
import { OfferClock, publishDeferredTo } from './offer-review-clock';
import { ReviewTimeline } from './offer-review-timeline';
import { OfferStatusKey } from './shared/search-attributes';
import { WorkQueue } from './shared/work-queue';
import { STEP_RETRY } from './shared/step-policy';
import { LONG_LIVED } from './shared/versioning';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: STEP_RETRY,
});
/** Decision 0078: the SLA's due time comes from Postgres (the activities' answers), no longer from the input. */
const REVIEW_SLA_FROM_STORE = 'review-sla-from-store';

type Actor = 'advertiser' | 'review_team' | 'system';

/**
 * One offer's life: review, client moves, edits, reminders, publication at start_date and closing
 * at end_date. Set up the handlers, then run the loop (the shape of Temporal's order reference app).
 */
export async function offerReviewWorkflow(input: OfferReviewInput): Promise<OfferReviewResult> {
  const review = new OfferReview(input);
  review.setup();
  return review.run();
}
setWorkflowOptions(LONG_LIVED, offerReviewWorkflow);

class OfferReview {
  private readonly offerId: string;
  private status: OfferStatus;
  private step: number;
  private readonly clock: OfferClock;
  /** Handlers' work, run one piece at a time by the main loop. */
  private readonly work = new WorkQueue();
  private readonly timeline: ReviewTimeline;

  constructor(private readonly input: OfferReviewInput) {
    this.offerId = input.offerId;
    this.status = input.status;
    this.step = input.step ?? 0;
    this.clock = new OfferClock(input);
    this.timeline = new ReviewTimeline(input.timeline);
    if (!input.timeline) this.timeline.note({ kind: 'started', status: this.status });
  }

  /** Queries, the review team's signals and the advertiser's updates; their work waits for the main loop. */
  setup(): void {
    setHandler(statusQuery, () => this.status);
    setHandler(reviewTimelineQuery, () => this.timeline.entries);
    setHandler(approveSignal, (d) => void this.work.run(() => this.decide('approved', d)).catch((e) => this.stepFailed(e)));
    setHandler(rejectSignal, (d) => void this.work.run(() => this.decide('rejected', d)).catch((e) => this.stepFailed(e)));
    setHandler(changeStatusUpdate, ({ to }) => this.work.run(() => this.changeStatus(to)), {
      validator: ({ to }) => refuseIf(clientMoveError(this.status, to)),
    });
    setHandler(reviewDueMovedSignal, ({ dueAtMs }) => void this.work.run(async () => this.moveReviewDue(dueAtMs)));
    setHandler(editOfferUpdate, (edit) => this.work.run(() => this.edit(edit)), {
      validator: (_edit) => refuseIf(editError(this.status)),
    });
  }

  /** Until the offer ends: run the handlers' work, or the timer that came due, or continue as new. */
  async run(): Promise<OfferReviewResult> {
    if (this.status === 'pending' && this.input.reminderDueAtMs === undefined) this.clock.reminderDueAtMs = this.reminderDue();
    while (!TERMINAL.includes(this.status)) {
      // Wakes for handlers' work or a suggested continue-as-new (true), or when the next timer is due (false).
      const woken = await condition(() => this.work.hasWork() || workflowInfo().continueAsNewSuggested, this.clock.msUntilDue());
      if (this.work.hasWork()) {
        await this.work.drain();
      } else if (woken) {
        if (await this.quiet()) return continueAsNew<typeof offerReviewWorkflow>(this.carriedOver());
      } else {
        await this.onTimer().catch((err: unknown) => {
          this.stepFailed(err);
          this.clock.pause();
        });
      }
    }
    await condition(allHandlersFinished);
    return this.status;
  }

  /** A timer is due (`OfferClock.due`): run its step. */
  private async onTimer(): Promise<void> {
    const due = this.clock.due(this.status);
    if (due === 'close') await this.moveTo('closed', 'system');
    else if (due === 'vouchers_expired') await this.recordVouchersExpired();
    else if (due === 'publish') await this.publish();
    else if (due === 'remind') await this.remind();
  }

  /** Once every handler has finished: whether no work came meanwhile, so the run may continue as new. */
  private async quiet(): Promise<boolean> {
    await condition(allHandlersFinished);
    return !this.work.hasWork();
  }

  /** What the next run starts from. */
  private carriedOver(): OfferReviewInput {
    return { ...this.input, status: this.status, step: this.step, ...this.clock.carried(), timeline: this.timeline.entries };
  }

  /** The review team's decision. A signal cannot answer; the CLI checks first, so this only catches races and stray signals. */
  private async decide(to: 'approved' | 'rejected', decision: ReviewDecision = {}): Promise<void> {
    const refused = reviewError(this.status);
    if (refused) {
      this.timeline.note({ kind: 'ignored', decision: to, reviewer: decision.reviewer, refused });
      return log.warn('review decision ignored', { offerId: this.offerId, decision: to, refused });
    }
    await this.moveTo(to, 'review_team', decision);
  }

  /** The advertiser's move; the validator refused it already unless the status changed since. */
  private async changeStatus(to: ClientStatus): Promise<OfferStatus> {
    const refused = clientMoveError(this.status, to);
    if (refused) throw ApplicationFailure.nonRetryable(refused, 'InvalidTransition');
    await this.moveTo(to, 'advertiser');
    return this.status;
  }

  /** The advertiser's edit, merged and validated by the API; its dates move the timers. */
  private async edit(edit: OfferEdit): Promise<void> {
    const refused = editError(this.status);
    if (refused) throw ApplicationFailure.nonRetryable(refused, 'NotEditable');
    await acts.recordOfferEdit({ key: this.nextKey(), offerId: this.offerId, input: edit.input, changedFields: edit.changedFields });
    this.clock.edited(edit.input);
    this.timeline.note({ kind: 'edited', changedFields: edit.changedFields });
  }

  private async moveTo(to: OfferStatus, actor: Actor, decision: ReviewDecision = {}): Promise<void> {
    const deferredTo = publishDeferredTo(to, this.clock.startDate);
    const recorded = await acts.recordOfferStatus({
      key: this.nextKey(),
      offerId: this.offerId,
      to,
      actor,
      reason: decision.reason,
      reviewer: decision.reviewer,
      ...(SELLABLE.includes(to) ? { publishDeferred: deferredTo !== null } : {}),
    });
    this.clock.publishDueAtMs = deferredTo;
    this.status = to;
    this.timeline.note({ kind: 'status', to, actor, reviewer: decision.reviewer, reason: decision.reason });
    upsertSearchAttributes([{ key: OfferStatusKey, value: to }]);
    const storedDue = patched(REVIEW_SLA_FROM_STORE) ? recorded?.reviewDueAtMs : undefined;
    this.clock.reminderDueAtMs = to === 'pending' ? (storedDue ?? this.reminderDue()) : null;
  }

  /** The SLA moved: a pending review waits for its new due time; one already reported overdue only if that time is still ahead. */
  private moveReviewDue(dueAtMs: number): void {
    if (this.status !== 'pending') return;
    if (this.clock.reminderDueAtMs !== null || dueAtMs > Date.now()) this.clock.reminderDueAtMs = dueAtMs;
  }

  /** No voucher bought from now could be redeemed: the offer stops selling, recorded as selling out is (event, catalogue, callbacks). */
  private async recordVouchersExpired(): Promise<void> {
    const on = this.clock.vouchersExpireOn!;
    await acts.recordVouchersExpired({ key: this.nextKey(), offerId: this.offerId, vouchersExpireOn: on });
    this.clock.vouchersExpiryRecorded = on;
  }

  private async publish(): Promise<void> {
    const due = this.clock.publishDueAtMs;
    this.clock.publishDueAtMs = null;
    await acts.publishOffer({ key: this.nextKey(), offerId: this.offerId }).catch((err: unknown) => {
      this.clock.publishDueAtMs = due; // not published: still due
      throw err;
    });
  }

  /**
   * A step of a signal or a timer failed for good (refused, or out of retries): the offer stays as
   * it was and an operator is told; updates answer their own failures to the client.
   */
  private stepFailed(err: unknown): void {
    log.error('offer review step failed for good; the offer stays as it was', { offerId: this.offerId, error: String(err) });
  }

  /**
   * The review passed its due time: `offer.review_overdue`, once per due time. The activity records
   * nothing when Postgres holds a later due time (the SLA moved, its signal still on the way): wait for it.
   */
  private async remind(): Promise<void> {
    const legacySeconds = this.input.reviewReminderSeconds ?? DEFAULT_REVIEW_SLA_SECONDS;
    const r = await acts.recordReviewOverdue({ key: this.nextKey(), offerId: this.offerId, waitingSeconds: legacySeconds });
    if (patched(REVIEW_SLA_FROM_STORE) && r && !r.recorded) {
      this.clock.reminderDueAtMs = r.dueAtMs;
      return;
    }
    this.timeline.note({ kind: 'reminder', waitingSeconds: r?.waitingSeconds ?? legacySeconds });
    this.clock.reminderDueAtMs = null;
  }

  /** A round's due time in runs that carry the SLA in their input (before decision 0078); the default otherwise. */
  private reminderDue(): number {
    return Date.now() + (this.input.reviewReminderSeconds ?? DEFAULT_REVIEW_SLA_SECONDS) * 1000;
  }

  /** Each activity's idempotency key: the workflow id and a step carried across continue-as-new. */
  private nextKey(): string {
    return `${workflowInfo().workflowId}:${this.step++}`;
  }
}

/** Update validators refuse before anything is written to history; the API answers invalid_state_transition. */
function refuseIf(message: string | undefined): void {
  if (message) throw ApplicationFailure.nonRetryable(message, 'InvalidTransition');
}
