/*
 * When an offer's review will likely end, from how long the last reviews took (decision 0078). Pure:
 * the durations come in, the estimate and its basis go out; store/offer-reviews.ts reads them.
 */

/** The review SLA when no operator has set one (`admin offers review-sla`): 72 hours. */
export const DEFAULT_REVIEW_SLA_SECONDS = 72 * 3600;

/** How many of the last decisions the estimate reads, overall or in one category. */
export const DECISIONS_READ = 200;

/** The fewest decisions in a category for its own figures; with fewer, every category's are used. */
export const MIN_CATEGORY_DECISIONS = 20;

/** The figures an estimate rests on: the last decisions' durations, and whose they are. */
export interface EstimateBasis {
  /** `category`: the offer's own category had enough decisions; `overall`: every category's; `none`: no decision yet. */
  scope: 'category' | 'overall' | 'none';
  category_id: number | null;
  /** How many decisions the figures come from (at most DECISIONS_READ). */
  decisions: number;
  /** The median and the 90th percentile of their durations, in seconds (null with no decision). */
  p50_seconds: number | null;
  p90_seconds: number | null;
}

/** The p-th percentile (0–100) of `values` by the nearest-rank method; null when empty. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/** The basis: the category's durations when it has MIN_CATEGORY_DECISIONS, else the overall ones. */
export function estimateBasis(categoryId: number | null, inCategory: readonly number[], overall: readonly number[]): EstimateBasis {
  const own = categoryId !== null && inCategory.length >= MIN_CATEGORY_DECISIONS;
  const durations = own ? inCategory : overall;
  return {
    scope: own ? 'category' : durations.length ? 'overall' : 'none',
    category_id: own ? categoryId : null,
    decisions: durations.length,
    p50_seconds: percentile(durations, 50),
    p90_seconds: percentile(durations, 90),
  };
}

/**
 * When a review submitted at `submittedAt` will likely be decided: the median duration of the past
 * reviews that lasted at least as long as this one has waited so far (a review that already waited
 * past most others is judged by the longer ones). Null when it has waited longer than every one of
 * them, or there is none; never before `now`.
 */
export function expectedDecisionAt(submittedAt: Date, now: Date, durations: readonly number[]): Date | null {
  const waited = (now.getTime() - submittedAt.getTime()) / 1000;
  const median = percentile(
    durations.filter((d) => d >= waited),
    50,
  );
  if (median === null) return null;
  return new Date(Math.max(now.getTime(), submittedAt.getTime() + median * 1000));
}

/** The SLA as ticketing systems show it: when it ends, the seconds left (negative once breached), whether it is breached. */
export function slaStanding(dueAt: Date, now: Date): { due_at: Date; remaining_seconds: number; breached: boolean } {
  const remaining = Math.floor((dueAt.getTime() - now.getTime()) / 1000);
  return { due_at: dueAt, remaining_seconds: remaining, breached: now.getTime() >= dueAt.getTime() };
}
