import type { Client } from '@temporalio/client';
import type { Db } from '../store/db';
import { approveSignal, rejectSignal } from '../workflows/offer-review';
import { offerReviewWorkflowId } from '../workflows/shared/ids';
import { reviewError, type OfferStatus } from '../domain/offer-lifecycle';

/*
 * The review team's decision, shared by every operator surface (the admin CLI and the /ops
 * console): check that the offer can be reviewed, then send the very signal an operator could
 * send from the Temporal CLI or UI. The workflow writes the new status; callers may wait for it.
 */

export type ReviewVerdict = 'approve' | 'reject';

/** A decision refused before any signal was sent: unknown offer, or not pending. */
export class ReviewDecisionError extends Error {
  constructor(
    message: string,
    readonly reason: 'not_found' | 'not_reviewable',
  ) {
    super(message);
  }
}

/** Polls the offer's status until it leaves `from` (or the timeout passes); returns the status then. */
export async function waitForStatusChange(db: Db, offerId: string, from: string, timeoutMs = 30_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const row = await db.selectFrom('offers').select('status').where('id', '=', offerId).executeTakeFirstOrThrow();
    if (row.status !== from || Date.now() > until) return row.status;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Signals `approve` or `reject` to `offer-review:<offer id>` after checking the offer is pending.
 * Returns the status the offer had when the signal was sent (pass it to `waitForStatusChange`).
 */
export async function sendReviewDecision(
  deps: { db: Db; temporal: Client },
  offerId: string,
  verdict: ReviewVerdict,
  opts: { reason?: string; reviewer?: string } = {},
): Promise<{ from: string }> {
  const row = await deps.db.selectFrom('offers').select(['status']).where('id', '=', offerId).executeTakeFirst();
  if (!row) throw new ReviewDecisionError(`no offer ${offerId}`, 'not_found');
  const refused = reviewError(row.status as OfferStatus);
  if (refused) throw new ReviewDecisionError(refused, 'not_reviewable');
  if (verdict === 'reject' && !opts.reason?.trim()) throw new ReviewDecisionError('a rejection needs a reason', 'not_reviewable');
  const handle = deps.temporal.workflow.getHandle(offerReviewWorkflowId(offerId));
  if (verdict === 'approve') await handle.signal(approveSignal, { reviewer: opts.reviewer });
  else await handle.signal(rejectSignal, { reason: opts.reason, reviewer: opts.reviewer });
  return { from: row.status };
}
