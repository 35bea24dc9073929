/*
 * The change feed's promise (docs/change-feed.md): how long a reader may pause and still continue
 * where it left off. Nothing deletes offer events today; a pruner must keep every event that a
 * cursor still within this window can reach (see store/offer-events.ts `fed_at`).
 */

/** Days a cursor stays good, and how far back `since` may reach. */
export const FEED_RETENTION_DAYS = 30;

/** The oldest time the feed still answers for, seen at `now`. */
export function feedWindowStart(now: Date): Date {
  return new Date(now.getTime() - FEED_RETENTION_DAYS * 86_400_000);
}
