import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OfferDocument } from '../domain/offer';
import type { ClientStatus, OfferStatus } from '../domain/offer-lifecycle';

/*
 * The offer-review workflow's contract, apart from its code so the API and the admin CLI import
 * only these definitions (and types), never the workflow's activity proxies. Signal and update
 * names are typed by operators (`temporal workflow signal --name approve`): they never change.
 */

export const OFFER_REVIEW_WORKFLOW_TYPE = 'offerReviewWorkflow';

export interface OfferReviewInput {
  offerId: string;
  status: OfferStatus;
  /** Last day the offer runs (YYYY-MM-DD, inclusive); it closes when that day ends (UTC). */
  endDate: string;
  /**
   * How long a review could wait before its reminder, in runs started before decision 0078 (the SLA
   * then came with the input). Since, the due time comes from Postgres: `reminderDueAtMs` at the start,
   * the status activity's answer on a resubmission, the `reviewDueMoved` signal when the SLA moves.
   */
  reviewReminderSeconds?: number;
  /** First day on sale (YYYY-MM-DD): an offer approved earlier is published when that day begins (UTC). */
  startDate: string;
  /** Carried across continue-as-new. */
  step?: number;
  /** When the pending review's SLA ends (its `offer.review_overdue` timer); null once it fired or when not pending. */
  reminderDueAtMs?: number | null;
  /** The review history so far, carried across continue-as-new. */
  timeline?: ReviewTimelineEntry[];
  publishDueAtMs?: number | null;
  /**
   * The offer's `vouchers_expire.on` (YYYY-MM-DD): when that day is over, no voucher may be sold, so
   * the offer leaves the catalogue like a sold-out one. Null (or absent) when the vouchers have no
   * fixed expiry date; an edit sets it.
   */
  vouchersExpireOn?: string | null;
  /** The `vouchersExpireOn` whose expiry was recorded already (carried across continue-as-new). */
  vouchersExpiryRecorded?: string | null;
}

/** The workflow's result: the status the offer ended in (cancelled or closed). */
export type OfferReviewResult = OfferStatus;

/** The workflow function's type, for typed starts by name: `start<OfferReviewWorkflow>(OFFER_REVIEW_WORKFLOW_TYPE, …)`. */
export type OfferReviewWorkflow = (input: OfferReviewInput) => Promise<OfferReviewResult>;

export interface ReviewDecision {
  reason?: string;
  reviewer?: string;
}

/**
 * An edit merged and validated by the API: the whole new offer document (every field of the API's
 * OfferInput; the workflow reads its dates, the activity stores it) and the fields the client changed.
 */
export interface OfferEdit {
  input: OfferDocument;
  changedFields: string[];
}

/** The review team's decisions (operators: admin CLI, `temporal workflow signal`, or the UI). */
export const approveSignal = defineSignal<[ReviewDecision?]>('approve');
export const rejectSignal = defineSignal<[ReviewDecision]>('reject');
/** The advertiser's status moves; refused moves fail the update (invalid_state_transition). */
export const changeStatusUpdate = defineUpdate<OfferStatus, [{ to: ClientStatus }]>('changeStatus');
export const editOfferUpdate = defineUpdate<void, [OfferEdit]>('editOffer');
export const statusQuery = defineQuery<OfferStatus>('status');
/** The review SLA moved (`admin offers review-sla`): the pending review's new due time (epoch ms), as Postgres now holds it. */
export const reviewDueMovedSignal = defineSignal<[{ dueAtMs: number }]>('reviewDueMoved');

/**
 * One step of an offer's review as the workflow saw it, for operators (the console's timeline).
 * `at` is the workflow task's time (ISO 8601). Kinds: `started` (the workflow began with `status`),
 * `status` (a move: `to`, by `actor`, with `reviewer` and `reason` for decisions), `reminder`
 * (the review waited `waitingSeconds`), `edited` (`changedFields`), `ignored` (a decision
 * signal that arrived when the offer could not be reviewed).
 */
export type ReviewTimelineEntry =
  | { at: string; kind: 'started'; status: OfferStatus }
  | { at: string; kind: 'status'; to: OfferStatus; actor: 'advertiser' | 'review_team' | 'system'; reviewer?: string; reason?: string }
  | { at: string; kind: 'reminder'; waitingSeconds: number }
  | { at: string; kind: 'edited'; changedFields: string[] }
  | { at: string; kind: 'ignored'; decision: 'approved' | 'rejected'; reviewer?: string; refused: string };

/** The review history, oldest first (at most the last TIMELINE_LIMIT entries). */
export const reviewTimelineQuery = defineQuery<ReviewTimelineEntry[]>('reviewTimeline');
/** How many timeline entries a workflow keeps (the oldest are dropped), so continue-as-new stays small. */
export const TIMELINE_LIMIT = 200;
