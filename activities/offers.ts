import { WorkflowUpdateStage } from '@temporalio/client';
import type { OfferEdit } from '../workflows/offer-review-messages';
import type { OfferStatus } from '../domain/offer-lifecycle';
import { Failure } from '../domain/failures';
import { reviewComment } from '../domain/review-decisions';
import type { ActivityDeps } from './deps';
import { reservationsEndedWithOffer } from '../store/reservations';
import { cancelReservationUpdate } from '../workflows/reservation-window-messages';
import { reservationWorkflowId } from '../workflows/shared/ids';
import { changeOfferStatus, saveOfferFields, StockConflictError, type StatusChange } from '../store/offers';
import { publishOffer } from '../store/offer-publication';
import { recordReviewOverdue } from '../store/offer-reviews';
import { recordVouchersExpired } from '../store/offer-stock';

/** Activities of the offer-review workflow: each one idempotent through its `key` (workflow id + step). */
export function createOfferActivities(deps: Pick<ActivityDeps, 'db' | 'log' | 'temporal'>) {
  /**
   * The offer's move (or an edit of its exclusivity) ended reservations in its own transaction; their reservation-window
   * workflows are then asked to end (their `cancel` Update finds the row ended and changes
   * nothing), so none waits for an end_date that no longer matters. Best effort: one that cannot
   * be reached ends at its end_date anyway, finding the reservation ended.
   */
  async function endReservationWorkflows(offerId: string): Promise<void> {
    const ids = await reservationsEndedWithOffer(deps.db, offerId);
    const results = await Promise.allSettled(
      ids.map((id) =>
        deps.temporal.workflow
          .getHandle(reservationWorkflowId(id))
          .startUpdate(cancelReservationUpdate, { waitForStage: WorkflowUpdateStage.ACCEPTED }),
      ),
    );
    // Refused (already ended) or gone (completed): nothing to do.
    const failed = results.filter((r) => r.status === 'rejected').length;
    if (failed) deps.log.debug({ offer_id: offerId, not_reached: failed }, 'reservation workflows already ended');
  }

  return {
    /** Answers the review's due time (a move to pending sets it from the SLA; null otherwise). */
    async recordOfferStatus(change: StatusChange & { to: OfferStatus }): Promise<{ reviewDueAtMs: number | null }> {
      const { reviewDueAt } = await changeOfferStatus(deps.db, change, reviewComment(change));
      if (change.to === 'cancelled' || change.to === 'closed') await endReservationWorkflows(change.offerId);
      return { reviewDueAtMs: reviewDueAt?.getTime() ?? null };
    },

    /** The offer's start_date has begun: it goes on sale (published_at, `offer.published`). */
    async publishOffer(p: { key: string; offerId: string }): Promise<void> {
      await publishOffer(deps.db, p);
    },

    async recordOfferEdit(edit: OfferEdit & { key: string; offerId: string }): Promise<void> {
      try {
        await saveOfferFields(deps.db, edit);
      } catch (err) {
        // Not a passing fault: the client must send another quantity. A refusal, like any other
        // (an advertiser name taken since the service checked it), fails the step for good
        // (worker/activity-failures.ts) and reaches the client as its code.
        if (err instanceof StockConflictError) throw new Failure('conflict', err.message, { field: 'initial_quantity' });
        throw err;
      }
      // An exclusivity may have ended holds of distributors it leaves out: their workflows end too.
      await endReservationWorkflows(edit.offerId);
    },

    /**
     * The review's timer came due: `offer.review_overdue` unless Postgres holds a later due time
     * (`dueAtMs`) or the offer is no longer pending. `waitingSeconds` is the old input's, unused.
     */
    async recordReviewOverdue(r: {
      key: string;
      offerId: string;
      waitingSeconds?: number;
    }): Promise<{ recorded: boolean; waitingSeconds: number; dueAtMs: number | null }> {
      const { recorded, waitingSeconds, dueAt } = await recordReviewOverdue(deps.db, r);
      if (recorded) deps.log.warn({ offer_id: r.offerId, waiting_seconds: waitingSeconds }, 'offer review is overdue');
      return { recorded, waitingSeconds, dueAtMs: dueAt?.getTime() ?? null };
    },

    /** `vouchers_expire.on` is over: the offer stops selling, recorded like selling out. */
    async recordVouchersExpired(e: { key: string; offerId: string; vouchersExpireOn: string }): Promise<void> {
      await recordVouchersExpired(deps.db, e);
    },
  };
}
