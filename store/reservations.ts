import type { ReservationRow } from './database';
import { sql } from 'kysely';
import type { Db, Trx } from './db';
import { unnestRows } from './unnest';
import type { Page, Paged } from '../domain/paging';
import type { SaleRules } from '../domain/sales';
import {
  ENDED_BY_OFFER,
  type HoldReservationInput,
  type ReservationChange,
  type ReservationEndReason,
  type ReservationOutcome,
  type ReservationRelease,
} from '../domain/reservations';
import { openTo } from '../domain/exclusivity';
import { findAccount } from './accounts';
import { lockOffers, moveStock } from './offer-stock';
import { pageOf } from './paging';
import { vouchersExpireOf } from '../domain/voucher-expiry';
import { refusable } from '../domain/failures';
import { requireSellableForHold, requireStockForChange, requireStockToHold, reservationChangeOf } from '../domain/reservation-rules';
import { utcDay } from '../domain/dates';

/*
 * A reservation moves units out of the offer's general stock (`quantity_in_stock`) into a hold for
 * one account (`offers.reserved_quantity` counts all holds). Each write is one transaction that
 * locks the offer, then the reservation.
 */

async function lockReservation(trx: Trx, id: string) {
  const { offer_id } = await trx.selectFrom('reservations').select('offer_id').where('id', '=', id).executeTakeFirstOrThrow();
  const offer = (await lockOffers(trx, [offer_id])).get(offer_id)!;
  const res = await trx.selectFrom('reservations').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
  return { offer, res };
}

/** Takes the units for the account, checked with `rules` (domain/sales.ts) in the transaction; idempotent by reservation id. */
export async function holdReservation(db: Db, r: HoldReservationInput, rules: SaleRules): Promise<ReservationOutcome> {
  return refusable(() =>
    db.transaction().execute(async (trx): Promise<ReservationOutcome> => {
      const existing = await trx.selectFrom('reservations').select('end_date').where('id', '=', r.reservationId).executeTakeFirst();
      if (existing) return { ok: true, endDate: existing.end_date };
      rules.requireAccount(r.accountId, await findAccount(trx, r.clientId, r.accountId));
      const found = (await lockOffers(trx, [r.offerId])).get(r.offerId);
      // An offer exclusive to other distributors does not exist for this one.
      const offer = found && rules.openTo(found.document, r.clientId, utcDay()) ? found : undefined;
      const why = rules.unsellableReason(offer, utcDay());
      requireSellableForHold(r.offerId, offer, why);
      // A hold promises a sale: none of vouchers that would already be expired.
      rules.requireUnexpiredVouchers({ id: offer.id, vouchers_expire: vouchersExpireOf(offer.document) }, utcDay(), 'offer_id');
      requireStockToHold(r.offerId, offer.quantity_in_stock, r.quantity);
      await trx
        .insertInto('reservations')
        .values({
          id: r.reservationId,
          client_id: r.clientId,
          offer_id: r.offerId,
          account_id: r.accountId,
          quantity_reserved: r.quantity,
          quantity_in_stock: r.quantity,
          start_date: r.startDate,
          end_date: r.endDate,
          status: 'active',
        })
        .execute();
      await moveStock(trx, offer, {
        stock: -r.quantity,
        reserved: r.quantity,
        key: `reservation-held:${r.reservationId}`,
        reason: 'reservation_held',
      });
      return { ok: true, endDate: r.endDate };
    }),
  );
}

/**
 * Changes the quantity or the window. Values are absolute, so a retry finds nothing left to move.
 * Raising the quantity is a new hold, so `rules` refuse it once the offer's vouchers would be
 * expired when bought; lowering it or moving the window is always allowed.
 */
export async function changeReservation(db: Db, c: ReservationChange, rules: SaleRules): Promise<ReservationOutcome> {
  return refusable(() =>
    db.transaction().execute(async (trx): Promise<ReservationOutcome> => {
      const { offer, res } = await lockReservation(trx, c.reservationId);
      const { start, end, delta } = reservationChangeOf(res, c);
      if (delta > 0)
        rules.requireUnexpiredVouchers({ id: offer.id, vouchers_expire: vouchersExpireOf(offer.document) }, utcDay(), 'quantity_reserved');
      requireStockForChange(offer, delta);
      await trx
        .updateTable('reservations')
        .set({
          quantity_reserved: res.quantity_reserved + delta,
          quantity_in_stock: res.quantity_in_stock + delta,
          start_date: start,
          end_date: end,
          updated_at: new Date(),
        })
        .where('id', '=', res.id)
        .execute();
      await moveStock(trx, offer, { stock: -delta, reserved: delta, key: c.key, reason: 'reservation_changed' });
      return { ok: true, endDate: end };
    }),
  );
}

/** Ends the hold (cancelled by the client, or expired at end_date): what is left returns to general stock. */
export async function releaseReservation(db: Db, r: ReservationRelease): Promise<ReservationRow> {
  return db.transaction().execute(async (trx) => {
    const { offer, res } = await lockReservation(trx, r.reservationId);
    if (res.status !== 'active') return res;
    const left = res.quantity_in_stock;
    const row = await trx
      .updateTable('reservations')
      .set({
        status: r.to,
        quantity_in_stock: 0,
        ended_at: new Date(),
        updated_at: new Date(),
        end_reason: r.to === 'cancelled' ? 'cancelled_by_client' : 'end_date_passed',
      })
      .where('id', '=', res.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await moveStock(trx, offer, { stock: left, reserved: -left, key: r.key, reason: `reservation_${r.to}` });
    return row;
  });
}

/**
 * Ends every active reservation of an offer that was cancelled or closed (or, with `clientIds`,
 * those of these distribution clients), in the caller's transaction (the one that moves the offer,
 * holding its lock): each becomes `cancelled` with the reason, and what it still held returns to
 * general stock, so nothing is sold from it afterwards. Their reservation-window workflows are then
 * told (activities/offers.ts) and end, changing nothing.
 */
export async function endOfferReservations(
  trx: Trx,
  e: { key: string; offerId: string; reason: ReservationEndReason; clientIds?: string[] },
): Promise<number> {
  const offer = (await lockOffers(trx, [e.offerId])).get(e.offerId)!;
  const held = await trx
    .selectFrom('reservations')
    .select(['id', 'quantity_in_stock'])
    .where('offer_id', '=', e.offerId)
    .where('status', '=', 'active')
    .$if(e.clientIds !== undefined, (q) => q.where('client_id', 'in', e.clientIds!))
    .orderBy('id')
    .forUpdate()
    .execute();
  if (held.length === 0) return 0;
  const now = new Date();
  await trx
    .updateTable('reservations')
    .set({ status: 'cancelled', end_reason: e.reason, quantity_in_stock: 0, ended_at: now, updated_at: now })
    .where(
      'id',
      'in',
      held.map((r) => r.id),
    )
    .execute();
  const left = held.reduce((n, r) => n + r.quantity_in_stock, 0);
  await moveStock(trx, offer, { stock: left, reserved: -left, key: `${e.key}:reservations`, reason: e.reason });
  return held.length;
}

/**
 * Ends, in the edit's transaction, the active reservations of the distribution clients the edited
 * offer is no longer open to today (domain/exclusivity.ts `openTo`): an exclusivity given or
 * narrowed closes every door, holds included, as ending the offer does (reason `offer_exclusive`).
 */
export async function endClosedOutReservations(trx: Trx, e: { key: string; offerId: string; document: unknown }): Promise<number> {
  const holders = await trx
    .selectFrom('reservations')
    .select('client_id')
    .distinct()
    .where('offer_id', '=', e.offerId)
    .where('status', '=', 'active')
    .execute();
  const today = utcDay();
  const out = holders.map((r) => r.client_id).filter((id) => !openTo(e.document, id, today));
  if (out.length === 0) return 0;
  return endOfferReservations(trx, { key: e.key, offerId: e.offerId, reason: 'offer_exclusive', clientIds: out });
}

/** The reservations that ended with a change of their offer (endOfferReservations): their workflows are told so they end too. */
export async function reservationsEndedWithOffer(db: Db, offerId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('reservations')
    .select('id')
    .where('offer_id', '=', offerId)
    .where('end_reason', 'in', [...ENDED_BY_OFFER])
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The active reservations of these accounts under these offers whose window holds `today` and
 * that still hold units, oldest first, locked for a batch of orders (which locked the offers first).
 */
export function lockUsableReservations(
  trx: Trx,
  q: { offerIds: string[]; accountIds: string[]; today: string },
): Promise<Pick<ReservationRow, 'id' | 'offer_id' | 'account_id' | 'client_id' | 'quantity_in_stock'>[]> {
  return trx
    .selectFrom('reservations')
    .select(['id', 'offer_id', 'account_id', 'client_id', 'quantity_in_stock'])
    .where('offer_id', 'in', q.offerIds)
    .where('account_id', 'in', q.accountIds)
    .where('status', '=', 'active')
    .where('start_date', '<=', q.today)
    .where('end_date', '>=', q.today)
    .where('quantity_in_stock', '>', 0)
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Takes units out of reservations' holds (sold through them): one statement for a batch. */
export async function takeReservedUnits(trx: Trx, takes: { reservation_id: string; units: number }[]): Promise<void> {
  if (takes.length === 0) return;
  await sql`update reservations r set quantity_in_stock = r.quantity_in_stock - t.units, updated_at = now()
    from ${unnestRows('t', { reservation_id: 'text', units: 'int' }, takes)} where r.id = t.reservation_id`.execute(trx);
}

/** Gives `n` units back to the reservation's hold if it is still active; false when it is not. */
export async function returnReservedUnits(trx: Trx, reservationId: string, n: number): Promise<boolean> {
  const res = await trx
    .updateTable('reservations')
    .set((eb) => ({ quantity_in_stock: eb('quantity_in_stock', '+', n), updated_at: new Date() }))
    .where('id', '=', reservationId)
    .where('status', '=', 'active')
    .returning('id')
    .executeTakeFirst();
  return !!res;
}

/** One reservation of this client under this offer; another client's is not found. */
export function findReservation(db: Db, clientId: string, offerId: string, id: string): Promise<ReservationRow | undefined> {
  return db
    .selectFrom('reservations')
    .selectAll()
    .where('id', '=', id)
    .where('offer_id', '=', offerId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
}

/** This client's reservations of one offer, newest first. */
export function listReservations(
  db: Db,
  clientId: string,
  offerId: string,
  q: Page & { status?: ReservationRow['status']; account_id?: string },
): Promise<Paged<ReservationRow>> {
  let query = db.selectFrom('reservations').where('client_id', '=', clientId).where('offer_id', '=', offerId);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.account_id) query = query.where('account_id', '=', q.account_id);
  return pageOf(query, q, (f) => f.selectAll().orderBy('created_at', 'desc').orderBy('id'));
}

/** The window of each of these reservations (any client): what `admin workflows stuck` measures a window's age against. */
export function reservationWindows(db: Db, ids: string[]): Promise<Array<Pick<ReservationRow, 'id' | 'end_date' | 'status'>>> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('reservations').select(['id', 'end_date', 'status']).where('id', 'in', ids).execute();
}

/** How many reservations are still active although their end_date ended before `day` (their window did not close). */
export async function countActiveReservationsEndedBefore(db: Db, day: string): Promise<number> {
  const row = await db
    .selectFrom('reservations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('status', '=', 'active')
    .where('end_date', '<', day)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
