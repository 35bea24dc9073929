/*
 * The change feed's promise (docs/change-feed.md): how long a reader may pause and still continue
 * where it left off. A cursor's age is read from the feed, never from the client: the `fed_at` of
 * the first event after its position (services/event-feed.ts). The pruner (docs/data-retention.md)
 * deletes only events whose `fed_at` is older than the window and a grace, as a prefix of the feed,
 * and records the highest position it deleted (the floor) so that cursors below it are answered
 * gone (the first event after such a cursor would otherwise be a younger one).
 */

/** Days a cursor stays good, and how far back `since` may reach, unless FEED_RETENTION_DAYS says otherwise. */
export const FEED_RETENTION_DAYS = 30;

/** The oldest time the feed still answers for, seen at `now`, keeping `days`. */
export function feedWindowStart(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}

/**
 * How long after leaving the window an event is pruned: the pruner reads the database's clock,
 * readers their process's; an hour covers any skew between them, so nothing a reader still counts
 * as inside the window is ever gone.
 */
export const FEED_PRUNE_GRACE_SECONDS = 3600;

/** One event as the pruner weighs it, in feed order from the floor up. */
export interface PruneCandidate {
  id: string;
  position: number;
  /** Placed in the feed longer ago than the window and the grace. */
  old: boolean;
  /** Its callback deliveries exist (the dispatcher has taken it). */
  dispatched: boolean;
  /** A callback delivery of it is still kept (pending, or within its own retention). */
  held: boolean;
}

/**
 * The events the pruner deletes: the run from the floor up that are all old, dispatched and held
 * by no delivery. Only a prefix, so that "deleted" is exactly "at or below the new floor": the
 * first event it must keep stops it, and everything after waits for the next run.
 */
export function prunablePrefix(candidates: PruneCandidate[]): PruneCandidate[] {
  const stop = candidates.findIndex((c) => !c.old || !c.dispatched || c.held);
  return stop < 0 ? candidates : candidates.slice(0, stop);
}

/**
 * The order item a voucher event is about (its voucher's order and offer), whose copy of the offer
 * as sold (store/orders.ts `offersAsSold`) the event shows a distributor the offer is no longer
 * open to; undefined for any other event.
 */
export function soldItemOf(event: {
  type: string;
  offer_id: string | null;
  data: unknown;
}): { order_id: string; offer_id: string } | undefined {
  const orderId = (event.data as { order_id?: unknown } | null)?.order_id;
  if (!event.type.startsWith('voucher.') || typeof orderId !== 'string' || !event.offer_id) return undefined;
  return { order_id: orderId, offer_id: event.offer_id };
}

/** The key of an order item in the map `offersAsSold` answers. */
export const soldItemKey = (item: { order_id: string; offer_id: string }) => `${item.order_id}:${item.offer_id}`;
