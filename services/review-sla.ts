import { reviewSlaSeconds, setReviewSlaSeconds } from '../store/offer-reviews';
import { moveReviewDueTimes } from '../store/offers';
import { reviewDueMovedSignal } from '../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../workflows/shared/ids';
import { invalidField } from '../domain/failures';
import type { ServiceDeps } from './deps';

/*
 * The review SLA (decision 0078): one value for every review, set by an operator while the service
 * runs (`admin offers review-sla`). Setting it moves every pending review's due time (submitted_at +
 * the SLA) in Postgres, in one transaction, then tells each review workflow its new due time, so
 * the `offer.review_overdue` timer moves too.
 */

/** The longest SLA an operator may set: a year (a longer one is a typo). */
const MAX_SLA_SECONDS = 366 * 24 * 3600;
/** How many workflows are signalled at once. */
const SIGNALS_AT_ONCE = 8;

/** The SLA in force, in seconds. */
export function currentReviewSla(deps: Pick<ServiceDeps, 'db'>): Promise<number> {
  return reviewSlaSeconds(deps.db);
}

/**
 * Sets the SLA and moves the pending reviews' due times; answers how many moved and how many
 * workflows could not be told (they still record nothing early: their overdue step reads the due
 * time from Postgres and waits again; a shortened SLA then fires at the old time).
 */
export async function setReviewSla(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'log'>,
  seconds: number,
): Promise<{ seconds: number; moved: number; not_reached: number }> {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_SLA_SECONDS)
    throw invalidField('seconds', `the review SLA is a whole number of seconds from 1 to ${MAX_SLA_SECONDS}`);
  const moved = await deps.db.transaction().execute(async (trx) => {
    await setReviewSlaSeconds(trx, seconds);
    return moveReviewDueTimes(trx, seconds);
  });
  let notReached = 0;
  for (let i = 0; i < moved.length; i += SIGNALS_AT_ONCE) {
    const results = await Promise.allSettled(
      moved
        .slice(i, i + SIGNALS_AT_ONCE)
        .map((o) =>
          deps.temporal.workflow
            .getHandle(offerReviewWorkflowId(o.id))
            .signal(reviewDueMovedSignal, { dueAtMs: o.review_due_at!.getTime() }),
        ),
    );
    notReached += results.filter((r) => r.status === 'rejected').length;
  }
  if (notReached) deps.log.warn({ not_reached: notReached }, 'review SLA moved; some review workflows could not be told');
  return { seconds, moved: moved.length, not_reached: notReached };
}
