import type { Readable } from 'node:stream';
import type { AttachmentRow } from '../store/database';
import { findClientAttachments, findLiveAttachment } from '../store/attachments';
import { categoryNames, listCategories, type CategoryListing } from '../store/categories';
import { findOffer, findOfferStatus } from '../store/offers';
import { waitForOfferStatusChange } from '../store/offer-status-changes';
import { findReviewRecord, listPendingOffers, pendingOffers, type PendingFilter } from '../store/review-queue';
import { approveSignal, rejectSignal, reviewTimelineQuery, type ReviewTimelineEntry } from '../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../workflows/shared/ids';
import { reviewError, type OfferStatus } from '../domain/offer-lifecycle';
import { Failure, invalidField, notFound } from '../domain/failures';
import type { Page, Paged } from '../domain/paging';
import type { OfferInput, SubmissionOffer } from '../schemas/offer';
import { toSubmissionOffer } from '../schemas/offer-view';
import type { ServiceDeps } from './deps';
import { readStored } from './attachments';
import { withinDeadline } from './workflow-outcomes';

/*
 * The review team's work, shared by every operator surface (the admin CLI and the /ops console):
 * the queue, an offer's review record, and the decision. A decision checks that the offer can be
 * reviewed, then sends the very signal an operator could send from the Temporal CLI or UI. The
 * workflow writes the new status; callers may wait for it.
 */

export type ReviewVerdict = 'approve' | 'reject';
export type { ReviewTimelineEntry };

/** An offer in the review queue. */
export interface QueuedOffer {
  id: string;
  title: string;
  type: string;
  advertiserName: string | undefined;
  submitted_at: Date;
  /** When its review SLA ends (overdue once past), and its first category (for the expected time). */
  dueAt: Date | null;
  categoryId: number | null;
}

/** The queue's filters as an operator picks them; `minWaitSeconds` keeps offers waiting at least that long. */
export interface QueueFilter {
  type?: string;
  categoryId?: number;
  minWaitSeconds?: number;
}

/** One page of the offers waiting for review (those matching `filter`), oldest first. */
export async function reviewQueue(
  deps: Pick<ServiceDeps, 'db'>,
  page: Page,
  filter: QueueFilter = {},
  now = new Date(),
): Promise<Paged<QueuedOffer>> {
  const pending: PendingFilter = {
    type: filter.type,
    categoryId: filter.categoryId,
    submittedBefore: filter.minWaitSeconds ? new Date(now.getTime() - filter.minWaitSeconds * 1000) : undefined,
  };
  const { rows, total } = await listPendingOffers(deps.db, page, pending);
  return {
    rows: rows.map((r) => ({
      id: r.id,
      title: r.title,
      type: r.type,
      advertiserName: (r.document as OfferInput).advertiser?.name,
      submitted_at: r.submitted_at,
      dueAt: r.review_due_at,
      categoryId: r.category_ids[0] ?? null,
    })),
    total,
  };
}

/** Every category, for the queue's category filter. */
export async function queueCategories(deps: Pick<ServiceDeps, 'db'>): Promise<CategoryListing[]> {
  return (await listCategories(deps.db, { page: 1, per_page: 10_000 })).rows;
}

/** The first offers waiting for review, oldest first (the admin CLI's `offers pending`). */
export function pendingReviews(deps: Pick<ServiceDeps, 'db'>, limit = 500) {
  return pendingOffers(deps.db, limit);
}

/** An offer's status and review record; refused for an unknown id. */
export async function reviewRecord(deps: Pick<ServiceDeps, 'db'>, offerId: string) {
  return (await findReviewRecord(deps.db, offerId)) ?? Promise.reject(new Failure('not_found', `no offer ${offerId}`));
}

/** What a reviewer reads of one offer: the offer, who reviewed it, its media and its category names. */
export interface OfferUnderReview {
  offer: SubmissionOffer;
  reviewedBy: string | null;
  attachments: AttachmentRow[];
  categoryNames: Map<number, string>;
  /** The review history from the offer's workflow, and its link in the Temporal Web UI. */
  history: ReviewHistory;
}

/** One offer (any client's) with what its review page shows; refused for an unknown id. */
export async function offerUnderReview(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'temporalUiUrl' | 'log' | 'config'>,
  offerId: string,
): Promise<OfferUnderReview> {
  const row = await findOffer(deps.db, offerId);
  if (!row) throw new Failure('not_found', `There is no offer ${offerId}.`);
  const history = reviewHistory(deps, offerId);
  const offer = toSubmissionOffer(row);
  const attachments = await findClientAttachments(
    deps.db,
    row.client_id,
    offer.creative.original_media.map((m) => m.id),
  );
  const names = await categoryNames(
    deps.db,
    offer.advertiser.categories.map((c) => c.id),
  );
  return { offer, reviewedBy: row.reviewed_by, attachments, categoryNames: names, history: await history };
}

/** A live attachment (any client's) and its content, for a reviewer; refused when either is missing. */
export async function attachmentUnderReview(
  deps: Pick<ServiceDeps, 'db' | 'store'>,
  attachmentId: string,
): Promise<{ row: AttachmentRow; body: Readable }> {
  const row = await findLiveAttachment(deps.db, attachmentId);
  if (!row) throw new Failure('not_found', `There is no attachment ${attachmentId}.`);
  const missing = () => new Failure('not_found', 'The attachment content is missing from the store.');
  return { row, body: await readStored(deps.store, row.object_key, missing) };
}

/**
 * Waits until the offer's status leaves `from` (woken by the database when the workflow's write
 * commits: store/offer-status-changes.ts) or the timeout passes; returns the status then.
 */
export async function waitForStatusChange(
  deps: Pick<ServiceDeps, 'db'>,
  offerId: string,
  from: string,
  timeoutMs = 30_000,
): Promise<string> {
  const status = await waitForOfferStatusChange(deps.db, offerId, from, timeoutMs);
  if (status === undefined) throw notFound('offer');
  return status;
}

/**
 * Signals `approve` or `reject` to `offer-review:<offer id>` after checking the offer is pending;
 * refuses (not_found, invalid_state_transition, invalid_field) before sending anything otherwise.
 * Returns the status the offer had when the signal was sent (pass it to `waitForStatusChange`).
 */
export async function sendReviewDecision(
  deps: Pick<ServiceDeps, 'db' | 'temporal'>,
  offerId: string,
  verdict: ReviewVerdict,
  opts: { reason?: string; reviewer?: string } = {},
): Promise<{ from: string }> {
  const status = await findOfferStatus(deps.db, offerId);
  if (status === undefined) throw new Failure('not_found', `no offer ${offerId}`);
  const refused = reviewError(status as OfferStatus);
  if (refused) throw new Failure('invalid_state_transition', refused);
  if (verdict === 'reject' && !opts.reason?.trim()) throw invalidField('reason', 'a rejection needs a reason');
  const handle = deps.temporal.workflow.getHandle(offerReviewWorkflowId(offerId));
  if (verdict === 'approve') await handle.signal(approveSignal, { reviewer: opts.reviewer });
  else await handle.signal(rejectSignal, { reason: opts.reason, reviewer: opts.reviewer });
  return { from: status };
}

/**
 * A decision from a route, within the one answer deadline (WORKFLOW_ANSWER_TIMEOUT_SECONDS): the
 * signal is sent, then the status is awaited with what is left. A delivered signal is durable, so
 * a decision the workflow has not recorded by then (no worker, a stuck step) still will be:
 * `recorded` says which. A signal Temporal did not take in time is backend_unavailable.
 */
export async function decideWithinDeadline(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'config'>,
  offerId: string,
  verdict: ReviewVerdict,
  opts: { reason?: string; reviewer?: string } = {},
): Promise<{ status: string; recorded: boolean }> {
  const seconds = deps.config.WORKFLOW_ANSWER_TIMEOUT_SECONDS;
  const until = Date.now() + seconds * 1000;
  const { from } = await withinDeadline(deps.temporal, () => sendReviewDecision(deps, offerId, verdict, opts), seconds, {
    message: `the ${verdict} decision on offer ${offerId} could not be confirmed in time; reload the offer and decide again if it is still pending`,
    offer_id: offerId,
  });
  const status = await waitForStatusChange(deps, offerId, from, Math.max(0, until - Date.now()));
  return { status, recorded: status !== from };
}

/** An offer's review history as its workflow tells it, and where to see that workflow in Temporal's Web UI. */
export interface ReviewHistory {
  /** Oldest first; undefined when the workflow could not answer (`unavailable` says why). */
  timeline?: ReviewTimelineEntry[];
  unavailable?: string;
  /** The workflow's page in the Temporal Web UI, when the UI's address is known. */
  webUiUrl?: string;
}

/**
 * How long the console waits for a workflow to answer its timeline query before showing the page
 * without it (at most the answer deadline too): the page is useful without it, so it waits less.
 */
const TIMELINE_QUERY_TIMEOUT_MS = 5000;

/**
 * Asks the offer's review workflow for its timeline (a query: answered by a worker, running or
 * closed, without changing the workflow). A missing workflow or one that does not answer in time
 * leaves the timeline out with the reason, so the rest of the page still shows.
 */
export async function reviewHistory(
  deps: Pick<ServiceDeps, 'temporal' | 'temporalUiUrl' | 'log' | 'config'>,
  offerId: string,
): Promise<ReviewHistory> {
  const workflowId = offerReviewWorkflowId(offerId);
  const handle = deps.temporal.workflow.getHandle(workflowId);
  const [described, queried] = await Promise.allSettled([
    handle.describe(),
    withinDeadline(deps.temporal, () => handle.query(reviewTimelineQuery), timelineWaitMs(deps) / 1000, { message: 'timeout' }),
  ]);
  const ui = deps.temporalUiUrl?.replace(/\/+$/, '');
  const runId = described.status === 'fulfilled' ? described.value.runId : undefined;
  const webUiUrl = ui
    ? `${ui}/namespaces/${encodeURIComponent(deps.temporal.options.namespace)}/workflows/${encodeURIComponent(workflowId)}` +
      (runId ? `/${encodeURIComponent(runId)}/history` : '')
    : undefined;
  if (queried.status === 'fulfilled') return { timeline: queried.value, webUiUrl };
  const err = queried.reason as Error;
  const late = err instanceof Failure && err.code === 'backend_unavailable';
  if (!late) deps.log.warn({ err, offer_id: offerId }, 'review timeline query failed');
  return { unavailable: late ? 'the workflow did not answer in time (is a worker running?)' : err.message, webUiUrl };
}

/** The timeline query's wait: its own short budget, never past the one answer deadline. */
function timelineWaitMs(deps: Pick<ServiceDeps, 'config'>): number {
  return Math.min(TIMELINE_QUERY_TIMEOUT_MS, deps.config.WORKFLOW_ANSWER_TIMEOUT_SECONDS * 1000);
}
