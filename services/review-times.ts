import { categoryNames } from '../store/categories';
import { decisionDurations, decisionDurationsByCategory, recordReviewStarted } from '../store/offer-reviews';
import { estimateBasis, expectedDecisionAt, percentile } from '../domain/review-estimate';
import type { ServiceDeps } from './deps';

/*
 * The review console's view of review times (docs/ops-console.md): each queued offer's expected
 * decision, by the rule the advertisers' endpoint uses (domain/review-estimate.ts), and the p50/p90
 * per category for the chart; and the record that an operator opened a review.
 */

/** The last decisions' durations (seconds), overall and per category. */
export interface ReviewTimes {
  overall: number[];
  byCategory: Map<number, number[]>;
}

/** One category's figures for the chart. */
export interface CategoryReviewTimes {
  categoryId: number;
  name: string;
  decisions: number;
  p50: number;
  p90: number;
}

/** Reads the durations once for a whole queue page (two queries). */
export async function reviewTimes(deps: Pick<ServiceDeps, 'db'>): Promise<ReviewTimes> {
  const [overall, byCategory] = await Promise.all([decisionDurations(deps.db), decisionDurationsByCategory(deps.db)]);
  return { overall, byCategory };
}

/** When a queued offer will likely be decided (null: waited past every past review, or none yet). */
export function expectedFor(times: ReviewTimes, categoryId: number | null, submittedAt: Date, now: Date): Date | null {
  const inCategory = categoryId === null ? [] : (times.byCategory.get(categoryId) ?? []);
  const basis = estimateBasis(categoryId, inCategory, times.overall);
  return expectedDecisionAt(submittedAt, now, basis.scope === 'category' ? inCategory : times.overall);
}

/** p50 and p90 per category that has decisions, slowest p90 first, with the categories' names. */
export async function categoryReviewTimes(deps: Pick<ServiceDeps, 'db'>, times: ReviewTimes): Promise<CategoryReviewTimes[]> {
  const names = await categoryNames(deps.db, [...times.byCategory.keys()]);
  return [...times.byCategory.entries()]
    .map(([categoryId, d]) => ({
      categoryId,
      name: names.get(categoryId) ?? `#${categoryId}`,
      decisions: d.length,
      p50: percentile(d, 50)!,
      p90: percentile(d, 90)!,
    }))
    .sort((a, b) => b.p90 - a.p90 || a.categoryId - b.categoryId);
}

/** An operator opened a pending review: `offer.review_started`, once per round (store/offer-reviews.ts). */
export function reviewOpened(deps: Pick<ServiceDeps, 'db'>, offerId: string, operator: string): Promise<boolean> {
  return recordReviewStarted(deps.db, { offerId, operator });
}
