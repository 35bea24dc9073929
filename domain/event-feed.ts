/*
 * The change feed's promise (docs/change-feed.md): how long a reader may pause and still continue
 * where it left off. A cursor's age is read from the feed, never from the client: the `fed_at` of
 * the first event after its position (services/event-feed.ts). Nothing deletes offer events today;
 * a pruner may delete only events whose `fed_at` is older than the window, and must record the
 * highest position it deleted so that cursors below it are answered gone (the first event after
 * such a cursor would otherwise be a younger one).
 */

/** Days a cursor stays good, and how far back `since` may reach. */
export const FEED_RETENTION_DAYS = 30;

/** The oldest time the feed still answers for, seen at `now`. */
export function feedWindowStart(now: Date): Date {
  return new Date(now.getTime() - FEED_RETENTION_DAYS * 86_400_000);
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
