import { utcDay } from './dates';

/*
 * An offer's exclusivity (issue 20): while `exclusive` is true and `until` has not begun, only the
 * distribution clients named in `channels` (by client id) find, read, order and reserve the offer,
 * and only their callbacks carry it; for every other distribution client it does not exist (404).
 * Days are UTC. store/distribution-visibility.ts states `openTo` in SQL (`openToSql`).
 * docs/distribution-offers.md, "Exclusive offers".
 */

/** The `exclusivity` of an offer's stored document (schemas/offer.ts `Exclusivity`). */
export interface Exclusivity {
  exclusive: boolean;
  /** Distribution client ids the offer is exclusive to. */
  channels?: readonly string[];
  /** The first day (YYYY-MM-DD, UTC) the offer is open to every distributor; absent: exclusive for good. */
  until?: string;
}

/** The `exclusivity` of an offer's stored document, if any. */
export function exclusivityOf(document: unknown): Exclusivity | undefined {
  return (document as { exclusivity?: Exclusivity } | null)?.exclusivity;
}

/** Whether the exclusivity holds on `today`: exclusive, and `until` (when given) not begun. */
export function exclusiveOn(document: unknown, today: string): boolean {
  const e = exclusivityOf(document);
  return !!e?.exclusive && (e.until === undefined || today < e.until);
}

/** Whether this distribution client may see the offer on `today` (it exists for it). */
export function openTo(document: unknown, clientId: string, today: string): boolean {
  return !exclusiveOn(document, today) || (exclusivityOf(document)?.channels ?? []).includes(clientId);
}

/**
 * Whether this distribution client could see the offer when an event about it was written
 * (docs/decisions/0074-feed-visibility-in-time.md): by the exclusivity the event kept (migration
 * 0066), on the event's UTC day. An event that kept none (written before it) is judged by the
 * offer's document as it is now, today.
 */
export function openWhenWritten(
  event: { exclusivity?: unknown; created_at: Date | string },
  document: unknown,
  clientId: string,
  now: Date = new Date(),
): boolean {
  if (event.exclusivity === null || event.exclusivity === undefined) return openTo(document, clientId, utcDay(now));
  return openTo({ exclusivity: event.exclusivity }, clientId, utcDay(new Date(event.created_at)));
}
