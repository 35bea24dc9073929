import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Trx } from './db';
import type { VoucherRow } from './database';
import type { Page, Paged } from '../domain/paging';
import { lockOffers, moveStock } from './offer-stock';
import { pageOf } from './paging';
import { returnReservedUnits } from './reservations';
import { refusable, type Refused } from '../domain/failures';
import { requireCancellable } from '../domain/voucher-cancellation';
import { DAY_MS } from '../domain/dates';
import { heldKey } from '../domain/order-state';
import { unnestRows } from './unnest';
import { withLiveRedemptions, withRedemptions, type VoucherWithRedemptions } from './redemptions';
import { codeLookupForms, groupedCode } from '../domain/redemption-codes';

/** 16 characters of 80 random bits, grouped `XXXX-XXXX-XXXX-XXXX` (domain/redemption-codes.ts): unguessable and unique. */
export const newRedemptionCode = (): string => groupedCode(crypto.randomBytes(16));

/**
 * Gives the units of cancelled vouchers back: to their reservation while it is active, otherwise
 * to the offer's general stock. Vouchers of uncapped coupons took no stock and give none back;
 * nor do vouchers with an advertiser-supplied code: that code may already be in a customer's
 * hands, so it is never sold again (docs/vouchers.md).
 */
export async function returnUnits(
  trx: Trx,
  key: string,
  vouchers: Pick<VoucherRow, 'offer_id' | 'reservation_id' | 'counts_stock' | 'supplied'>[],
): Promise<void> {
  const counted = vouchers.filter((v) => v.counts_stock && !v.supplied);
  const offers = await lockOffers(
    trx,
    counted.map((v) => v.offer_id),
  );
  for (const offer of offers.values()) {
    const mine = counted.filter((v) => v.offer_id === offer.id);
    let toStock = 0;
    let toReserved = 0;
    for (const resId of new Set(mine.map((v) => v.reservation_id))) {
      const n = mine.filter((v) => v.reservation_id === resId).length;
      if (resId && (await returnReservedUnits(trx, resId, n))) toReserved += n;
      else toStock += n;
    }
    await moveStock(trx, offer, { stock: toStock, reserved: toReserved, key: `${key}:${offer.id}`, reason: 'vouchers_cancelled' });
  }
}

/**
 * How many live (not cancelled) vouchers of each offer each distribution client sold to each
 * customer (domain/customer-identity.ts `customerKey`), by heldKey: what limit_per_customer counts.
 * Read for a batch of orders after it locked the offers, so parallel batches count one after another.
 */
export async function countCustomerVouchers(
  trx: Trx,
  keys: { offer_id: string; client_id: string; customer_key: string }[],
): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{ offer_id: string; client_id: string; customer_key: string; n: number }>`
    select v.offer_id, v.client_id, v.customer_key, count(*)::int as n
    from vouchers v join (select distinct * from ${unnestRows('k', { offer_id: 'text', client_id: 'text', customer_key: 'text' }, keys)}) k
      on v.offer_id = k.offer_id and v.client_id = k.client_id and v.customer_key = k.customer_key
    where v.status <> 'cancelled'
    group by v.offer_id, v.client_id, v.customer_key`.execute(trx);
  return new Map(rows.map((r) => [heldKey(r.offer_id, r.client_id, r.customer_key), r.n]));
}

/**
 * Cancels one acquired voucher and returns its unit, in one transaction. A gift card partly spent
 * (a live redemption) is used, like a redeemed voucher: it is not cancelled.
 */
export async function cancelVoucher(db: Db, voucherId: string): Promise<VoucherWithRedemptions | Refused> {
  return refusable(() =>
    db.transaction().execute(async (trx) => {
      const current = await trx.selectFrom('vouchers').selectAll().where('id', '=', voucherId).forUpdate().executeTakeFirstOrThrow();
      requireCancellable(current.status, current.status === 'acquired' && (await withLiveRedemptions(trx, [voucherId])).size > 0);
      const row = await trx
        .updateTable('vouchers')
        .set({ status: 'cancelled', cancelled_at: new Date(), updated_at: new Date() })
        .where('id', '=', voucherId)
        .returningAll()
        .executeTakeFirstOrThrow();
      await returnUnits(trx, `voucher-cancelled:${voucherId}`, [row]);
      return (await withRedemptions(trx, [row]))[0];
    }),
  );
}

/**
 * Who sees a voucher: the submission client whose offer it is, or the distribution client that
 * sold it. Anyone else finds nothing.
 */
export type VoucherScope = { iface: 'submission' | 'distribution'; clientId: string };

function scoped(db: Db, scope: VoucherScope) {
  const q = db.selectFrom('vouchers').innerJoin('offers', 'offers.id', 'vouchers.offer_id');
  return scope.iface === 'submission'
    ? q.where('offers.client_id', '=', scope.clientId)
    : q.where('vouchers.client_id', '=', scope.clientId);
}

/**
 * One voucher by id (under an offer) or, under an advertiser, by id, redemption code or barcode
 * (a till scans the barcode), with its offer's title. Generated codes are also found typed in
 * lower case or with spaces for dashes (domain/redemption-codes.ts).
 */
export async function findVoucher(
  db: Db,
  scope: VoucherScope,
  ref: { offerId?: string; advertiserId?: string; idOrCode: string; byId?: boolean },
): Promise<(VoucherWithRedemptions & { title: string }) | undefined> {
  let q = scoped(db, scope).selectAll('vouchers').select('offers.title');
  if (ref.byId) q = q.where('vouchers.id', '=', ref.idOrCode);
  if (ref.offerId) q = q.where('vouchers.offer_id', '=', ref.offerId).where('vouchers.id', '=', ref.idOrCode);
  if (ref.advertiserId) {
    const codes = codeLookupForms(ref.idOrCode);
    q = q
      .where('offers.advertiser_id', '=', ref.advertiserId)
      .where((eb) =>
        eb.or([eb('vouchers.id', '=', ref.idOrCode), eb('vouchers.redemption_code', 'in', codes), eb('vouchers.barcode', 'in', codes)]),
      )
      // An exact id or code before a barcode that happens to equal another voucher's code.
      .orderBy(sql`vouchers.id = ${ref.idOrCode} or vouchers.redemption_code = ${ref.idOrCode}`, 'desc');
  }
  const found = await q.executeTakeFirst();
  return found && (await withRedemptions(db, [found]))[0];
}

/** The vouchers this scope sees, most recently changed first. */
export async function listVouchers(
  db: Db,
  scope: VoucherScope,
  q: Page & { status?: VoucherRow['status']; recently_changed?: number; offerId?: string },
): Promise<Paged<VoucherWithRedemptions>> {
  let query = scoped(db, scope);
  if (q.offerId) query = query.where('vouchers.offer_id', '=', q.offerId);
  if (q.status) query = query.where('vouchers.status', '=', q.status);
  if (q.recently_changed) query = query.where('vouchers.updated_at', '>=', new Date(Date.now() - q.recently_changed * DAY_MS));
  const { rows, total } = await pageOf(query, q, (f) =>
    f.selectAll('vouchers').orderBy('vouchers.updated_at', 'desc').orderBy('vouchers.id'),
  );
  return { rows: await withRedemptions(db, rows), total };
}

/**
 * A voucher by its customer page token, with what the customer's page shows (any client's: the
 * token is the key): its offer now, and as its order item sold it (migration 0041).
 */
export function findVoucherByPageToken(db: Db, token: string) {
  return db
    .selectFrom('vouchers')
    .innerJoin('offers', 'offers.id', 'vouchers.offer_id')
    .leftJoin('order_items', (j) =>
      j.onRef('order_items.order_id', '=', 'vouchers.order_id').onRef('order_items.offer_id', '=', 'vouchers.offer_id'),
    )
    .selectAll('vouchers')
    .select(['offers.title', 'offers.document', 'order_items.offer_as_sold'])
    .where('vouchers.page_token', '=', token)
    .executeTakeFirst();
}

/** Replaces the voucher's page token: the old customer page address stops working. */
export async function rotatePageToken(db: Db, voucherId: string): Promise<void> {
  await db
    .updateTable('vouchers')
    // updated_at stays: the voucher itself did not change (recently_changed lists status changes).
    .set({ page_token: crypto.randomBytes(32).toString('hex') })
    .where('id', '=', voucherId)
    .execute();
}
