import type { Readable } from 'node:stream';
import type { AttachmentRow } from '../store/database';
import { findClientAttachments, findLiveAttachment } from '../store/attachments';
import { categoryNames } from '../store/categories';
import { findOffer, findOfferStatus, findReviewRecord, listPendingOffers, pendingOffers } from '../store/offers';
import { approveSignal, rejectSignal } from '../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../workflows/shared/ids';
import { reviewError, type OfferStatus } from '../domain/offer-lifecycle';
import { Failure, invalidField, notFound } from '../domain/failures';
import type { Page, Paged } from '../domain/paging';
import type { OfferInput, SubmissionOffer } from '../schemas/offer';
import { toSubmissionOffer } from '../schemas/offer-view';
import type { ServiceDeps } from './deps';

/*
 * The review team's work, shared by every operator surface (the admin CLI and the /ops console):
 * the queue, an offer's review record, and the decision. A decision checks that the offer can be
 * reviewed, then sends the very signal an operator could send from the Temporal CLI or UI. The
 * workflow writes the new status; callers may wait for it.
 */

export type ReviewVerdict = 'approve' | 'reject';

/** An offer in the review queue. */
export interface QueuedOffer {
  id: string;
  title: string;
  type: string;
  advertiserName: string | undefined;
  submitted_at: Date;
}

/** One page of the offers waiting for review, oldest first. */
export async function reviewQueue(deps: Pick<ServiceDeps, 'db'>, page: Page): Promise<Paged<QueuedOffer>> {
  const { rows, total } = await listPendingOffers(deps.db, page);
  return {
    rows: rows.map((r) => ({
      id: r.id,
      title: r.title,
      type: r.type,
      advertiserName: (r.document as OfferInput).advertiser?.name,
      submitted_at: r.submitted_at,
    })),
    total,
  };
}

/** The first offers waiting for review, oldest first (the admin CLI's `offers pending`). */
export function pendingReviews(deps: Pick<ServiceDeps, 'db'>, limit = 500) {
  return pendingOffers(deps.db, limit);
}

/** An offer's status and review record; refused for an unknown id. */
export async function reviewRecord(deps: Pick<ServiceDeps, 'db'>, offerId: string) {
  const row = await findReviewRecord(deps.db, offerId);
  if (!row) throw new Failure('not_found', `no offer ${offerId}`);
  return row;
}

/** What a reviewer reads of one offer: the offer, who reviewed it, its media and its category names. */
export interface OfferUnderReview {
  offer: SubmissionOffer;
  reviewedBy: string | null;
  attachments: AttachmentRow[];
  categoryNames: Map<number, string>;
}

/** One offer (any client's) with what its review page shows; refused for an unknown id. */
export async function offerUnderReview(deps: Pick<ServiceDeps, 'db'>, offerId: string): Promise<OfferUnderReview> {
  const row = await findOffer(deps.db, offerId);
  if (!row) throw new Failure('not_found', `There is no offer ${offerId}.`);
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
  return { offer, reviewedBy: row.reviewed_by, attachments, categoryNames: names };
}

/** A live attachment (any client's) and its content, for a reviewer; refused when either is missing. */
export async function attachmentUnderReview(
  deps: Pick<ServiceDeps, 'db' | 'store'>,
  attachmentId: string,
): Promise<{ row: AttachmentRow; body: Readable }> {
  const row = await findLiveAttachment(deps.db, attachmentId);
  if (!row) throw new Failure('not_found', `There is no attachment ${attachmentId}.`);
  const body = await deps.store.client.getObject(deps.store.bucket, row.object_key).catch((err: { code?: string }) => {
    throw err.code === 'NoSuchKey' ? new Failure('not_found', 'The attachment content is missing from the store.') : err;
  });
  return { row, body };
}

/** Polls the offer's status until it leaves `from` (or the timeout passes); returns the status then. */
export async function waitForStatusChange(
  deps: Pick<ServiceDeps, 'db'>,
  offerId: string,
  from: string,
  timeoutMs = 30_000,
): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const status = await findOfferStatus(deps.db, offerId);
    if (status === undefined) throw notFound('offer');
    if (status !== from || Date.now() > until) return status;
    await new Promise((r) => setTimeout(r, 200));
  }
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
