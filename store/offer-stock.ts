import { SELLABLE, type OfferStatus } from '../domain/offer-lifecycle';
import type { Trx } from './db';
import { appendOfferEvent } from './offer-events';

/*
 * Stock moves shared by orders, vouchers and reservations. Every caller runs inside one
 * transaction, locks the offers first (sorted by id, so two transactions never deadlock), then
 * reservations, then changes counts and appends the offer's stock event in the same transaction.
 */

export interface LockedOffer {
  id: string;
  status: string;
  type: string;
  start_date: string;
  end_date: string;
  quantity_in_stock: number | null;
  reserved_quantity: number;
  document: unknown;
}

/** Locks the offers (sorted by id: no deadlock) for a stock move in this transaction. */
export async function lockOffers(trx: Trx, ids: string[]): Promise<Map<string, LockedOffer>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('offers')
    .select(['id', 'status', 'type', 'start_date', 'end_date', 'quantity_in_stock', 'reserved_quantity', 'document'])
    .where('id', 'in', [...new Set(ids)].sort())
    .orderBy('id')
    .forUpdate()
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** Why publishers may not buy or reserve this offer today, or undefined when they may. */
export function unsellableReason(offer: LockedOffer | undefined, today: string): string | undefined {
  if (!offer || !SELLABLE.includes(offer.status as OfferStatus)) return 'is not available';
  if (today < offer.start_date) return `is not on sale before ${offer.start_date}`;
  if (today > offer.end_date) return `ended on ${offer.end_date}`;
  return undefined;
}

/**
 * Moves an offer's general stock and reserved units by the given deltas (the CHECK constraints
 * make a negative result impossible) and appends `offer.stock_changed`, or `offer.sold_out` when
 * the general stock reaches zero. `key` makes the event idempotent.
 */
export async function moveStock(
  trx: Trx,
  offer: LockedOffer,
  d: { stock: number; reserved: number; key: string; reason: string },
): Promise<void> {
  if (offer.quantity_in_stock === null || (d.stock === 0 && d.reserved === 0)) return;
  const after = await trx
    .updateTable('offers')
    .set((eb) => ({
      quantity_in_stock: eb('quantity_in_stock', '+', d.stock),
      reserved_quantity: eb('reserved_quantity', '+', d.reserved),
      updated_at: new Date(),
    }))
    .where('id', '=', offer.id)
    .returning(['quantity_in_stock', 'reserved_quantity'])
    .executeTakeFirstOrThrow();
  const soldOut = after.quantity_in_stock === 0 && offer.quantity_in_stock > 0;
  offer.quantity_in_stock = after.quantity_in_stock;
  offer.reserved_quantity = after.reserved_quantity;
  await appendOfferEvent(trx, {
    key: d.key,
    offerId: offer.id,
    type: soldOut ? 'offer.sold_out' : 'offer.stock_changed',
    data: {
      quantity_in_stock: after.quantity_in_stock,
      reserved_quantity: after.reserved_quantity,
      change: d.stock,
      reserved_change: d.reserved,
      reason: d.reason,
    },
  });
}
