import type { SelectExpression } from 'kysely';
import type { Database } from './database';
import type { Db, Trx } from './db';
import { alreadyDone, appendOfferEvent } from './offer-events';
import { sql } from 'kysely';
import { TERMINAL, type OfferStatus } from '../domain/offer-lifecycle';
import type { OfferForSale } from '../domain/order-state';
import type { OfferAfter, StockEvent } from '../domain/order-plan';
import { unnestRows } from './unnest';

/*
 * Stock moves shared by orders, vouchers and reservations. Every caller runs inside one
 * transaction, locks the offers first (sorted by id, so two transactions never deadlock), then
 * reservations, then changes counts and appends the offer's stock event in the same transaction.
 */

/** An offer row locked for a stock move: what a sale decides from (domain/order-state.ts). */
export type LockedOffer = OfferForSale;

/** Locks the offers (sorted by id: no deadlock) for a stock move in this transaction. */
export async function lockOffers(trx: Trx, ids: string[]): Promise<Map<string, LockedOffer>> {
  if (ids.length === 0) return new Map();
  const rows = await trx
    .selectFrom('offers')
    .select([
      'id',
      'status',
      'type',
      'start_date',
      'end_date',
      'quantity_in_stock',
      'reserved_quantity',
      'sells_supplied_codes',
      'event_sequence',
      'document',
    ])
    .where('id', 'in', [...new Set(ids)].sort())
    .orderBy('id')
    .forUpdate()
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** One offer's row with these columns, locked for this transaction (a status move, an edit, a publication). */
export function lockOffer<C extends SelectExpression<Database, 'offers'>>(trx: Trx, id: string, columns: readonly C[]) {
  return trx.selectFrom('offers').select(columns).where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
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
  // The row is locked by this transaction, so the counts after the move are known here and the
  // update and its event go to the database as one statement. updated_at is the offer's content
  // and status (what recently_updated reports): a sale is not a change of the offer. Only selling
  // out and coming back are recorded (availability_changed_at), for catalogue syncs.
  const after = { quantity_in_stock: offer.quantity_in_stock + d.stock, reserved_quantity: offer.reserved_quantity + d.reserved };
  const availabilityChanged = (offer.quantity_in_stock === 0) !== (after.quantity_in_stock === 0);
  const soldOut = after.quantity_in_stock === 0 && offer.quantity_in_stock > 0;
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
    offerChange: { quantity_in_stock: d.stock, reserved_quantity: d.reserved, availabilityChanged },
  });
  offer.quantity_in_stock = after.quantity_in_stock;
  offer.reserved_quantity = after.reserved_quantity;
}

/**
 * Writes a batch's stock moves as decided (domain/order-plan.ts) on offers it locked: each offer's
 * counts after the batch and its last event number, and the events, in ONE statement (the offers'
 * update is a data-modifying CTE of the events' insert). Like moveStock, a sale leaves updated_at;
 * selling out or coming back dates availability_changed_at.
 */
export async function writeStockMoves(trx: Trx, offers: OfferAfter[], events: StockEvent[]): Promise<void> {
  if (offers.length === 0) return;
  const moved = offers.map((o) => ({ ...o, changed: o.availabilityChanged }));
  const numbered = events.map((e) => ({ ...e, data: JSON.stringify(e.data) }));
  await sql`
    with moved as (
      update offers o set quantity_in_stock = m.quantity_in_stock, reserved_quantity = m.reserved_quantity,
             event_sequence = m.event_sequence,
             availability_changed_at = case when m.changed then now() else o.availability_changed_at end
      from ${unnestRows('m', { id: 'text', quantity_in_stock: 'int', reserved_quantity: 'int', event_sequence: 'int', changed: 'bool' }, moved)}
      where o.id = m.id)
    insert into offer_events (id, offer_id, sequence, type, data)
    select e.id, e.offer_id, e.sequence, e.type, e.data::jsonb
    from ${unnestRows('e', { id: 'text', offer_id: 'text', sequence: 'int', type: 'text', data: 'text' }, numbered)}`.execute(trx);
}

/**
 * The offer's vouchers expired (its `vouchers_expire.on` is over), so it sells no more: recorded as
 * selling out is, with `offer.sold_out` (the same callbacks) and its availability change dated now
 * (what catalogue syncs' recently_closed reads). Its stock stays; the sale rules and the search
 * refuse it from now (domain/voucher-expiry.ts). Idempotent by `key`.
 */
export async function recordVouchersExpired(db: Db, e: { key: string; offerId: string; vouchersExpireOn: string }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (await alreadyDone(trx, e.key)) return;
    const offer = (await lockOffers(trx, [e.offerId])).get(e.offerId);
    if (!offer || TERMINAL.includes(offer.status as OfferStatus)) return;
    await appendOfferEvent(trx, {
      key: e.key,
      offerId: offer.id,
      type: 'offer.sold_out',
      data: {
        quantity_in_stock: offer.quantity_in_stock,
        reserved_quantity: offer.reserved_quantity,
        vouchers_expire: { on: e.vouchersExpireOn },
        reason: 'vouchers_expired',
      },
      offerChange: { quantity_in_stock: 0, reserved_quantity: 0, availabilityChanged: true },
    });
  });
}
