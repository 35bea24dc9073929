import { sql } from 'kysely';
import type { Db, Trx } from './db';
import type { VoucherRedemptionRow, VoucherRow } from './database';
import type { Money } from '../domain/money';
import { giftCardBalance, type RedemptionRules } from '../domain/redemptions';
import { refusable, type Refused } from '../domain/failures';
import { derivedId, newId } from './ids';
import { appendOfferEvent } from './offer-events';

/*
 * The redemption aggregate: the voucher_redemptions table, and the voucher columns a redemption
 * moves (status, redeemed_at, balance_amount). Each redemption and each rollback is ONE
 * transaction: the voucher row locked first (FOR UPDATE), every refusal decided under that lock
 * (domain/redemptions.ts), then the redemption row, the voucher and the outbox event written
 * together. Racing redemptions of one voucher queue on its lock, so a balance is never overdrawn;
 * CHECKs and a deferred trigger (migration 0019) hold value − balance = sum of live redemptions.
 */

/** Redemptions each voucher answer shows: the latest ones (`redemption_count` says how many there are). */
export const REDEMPTIONS_SHOWN = 100;

/** A voucher's redemptions as an answer shows them: the latest REDEMPTIONS_SHOWN, oldest first, and how many in all. */
export interface VoucherRedemptions {
  redemptions: VoucherRedemptionRow[];
  redemption_count: number;
}

/** A voucher with its redemptions, as every voucher answer shows it. */
export type VoucherWithRedemptions = VoucherRow & VoucherRedemptions;

/** The voucher, locked for this transaction, with what its offer says about redeeming it. */
function lockVoucher(trx: Trx, voucherId: string) {
  return trx
    .selectFrom('vouchers')
    .innerJoin('offers', 'offers.id', 'vouchers.offer_id')
    .selectAll('vouchers')
    .select(['offers.type as offer_type', 'offers.document as offer_document'])
    .where('vouchers.id', '=', voucherId)
    .forUpdate('vouchers')
    .executeTakeFirstOrThrow();
}

/** The status of the voucher's order, read fresh (a statement of its own). */
async function orderStatusOf(trx: Trx, voucherId: string): Promise<string> {
  const row = await trx
    .selectFrom('vouchers')
    .innerJoin('orders', 'orders.id', 'vouchers.order_id')
    .select('orders.status')
    .where('vouchers.id', '=', voucherId)
    .executeTakeFirstOrThrow();
  return row.status;
}

/** The redemptions of these vouchers, as answers show them (REDEMPTIONS_SHOWN latest each). */
export async function redemptionsOf(db: Db | Trx, voucherIds: string[]): Promise<Map<string, VoucherRedemptions>> {
  const out = new Map<string, VoucherRedemptions>(voucherIds.map((id) => [id, { redemptions: [], redemption_count: 0 }]));
  if (voucherIds.length === 0) return out;
  const ranked = db
    .selectFrom('voucher_redemptions')
    .selectAll()
    .select([
      sql<number>`row_number() over (partition by voucher_id order by redeemed_at desc, id desc)`.as('rank'),
      sql<string>`count(*) over (partition by voucher_id)`.as('count'),
    ])
    .where('voucher_id', 'in', voucherIds);
  const rows = await db
    .selectFrom(ranked.as('r'))
    .selectAll()
    .where('rank', '<=', REDEMPTIONS_SHOWN)
    .orderBy('voucher_id')
    .orderBy('redeemed_at')
    .orderBy('id')
    .execute();
  for (const { rank: _rank, count, ...r } of rows) {
    const mine = out.get(r.voucher_id)!;
    mine.redemptions.push(r);
    mine.redemption_count = Number(count);
  }
  return out;
}

/** These vouchers, each with its redemptions. */
export async function withRedemptions<V extends VoucherRow>(db: Db | Trx, vouchers: V[]): Promise<(V & VoucherRedemptions)[]> {
  const all = await redemptionsOf(
    db,
    vouchers.map((v) => v.id),
  );
  return vouchers.map((v) => ({ ...v, ...all.get(v.id)! }));
}

/**
 * What a redeem request asks: an amount (gift cards; absent: the whole balance), its whole body
 * (domain/redemptions.ts `redeemRequestOf`: a retry must repeat it) and the client's Idempotency-Key.
 */
export interface RedeemAsk {
  amount?: Money;
  request?: string;
  idempotencyKey?: string;
  /** The staff member redeeming at the counter (/merchant); absent through the API. */
  staff?: { id: string; name: string };
}

/** The event data of a redemption or its rollback; `distribution_client_id` routes it (not shown to receivers). */
function eventData(v: VoucherRow, r: VoucherRedemptionRow) {
  return {
    voucher_id: v.id,
    order_id: v.order_id,
    voucher_status: v.status,
    balance: giftCardBalance(v),
    redemption: {
      id: r.id,
      amount: r.amount === null ? null : { currency_code: r.currency_code, amount: r.amount },
      redeemed_at: r.redeemed_at.toISOString(),
      rolled_back_at: r.rolled_back_at?.toISOString() ?? null,
      staff_id: r.staff_id,
      staff_name: r.staff_name,
    },
    distribution_client_id: v.client_id,
  };
}

/**
 * Redeems the voucher as `rules.decide` says, in one transaction. A retry with the same
 * Idempotency-Key finds the redemption it made and answers the voucher as it is, taking nothing
 * again; the same key with another amount is refused.
 */
export async function redeemVoucher(
  db: Db,
  voucherId: string,
  ask: RedeemAsk,
  rules: RedemptionRules,
): Promise<(VoucherWithRedemptions & { replayed?: true }) | Refused> {
  return refusable(() =>
    db.transaction().execute(async (trx): Promise<VoucherWithRedemptions & { replayed?: true }> => {
      const { offer_type, offer_document, ...voucher } = await lockVoucher(trx, voucherId);
      if (ask.idempotencyKey !== undefined) {
        const before = await trx
          .selectFrom('voucher_redemptions')
          .selectAll()
          .where('voucher_id', '=', voucherId)
          .where('idempotency_key', '=', ask.idempotencyKey)
          .executeTakeFirst();
        if (before) {
          rules.requireSameAsk(before, ask);
          return { ...(await withRedemptions(trx, [voucher]))[0], replayed: true };
        }
      }
      const now = new Date();
      const d = rules.decide(
        {
          status: voucher.status,
          expiration_date: voucher.expiration_date,
          balance: giftCardBalance(voucher),
          offer: { id: voucher.offer_id, type: offer_type, document: offer_document },
        },
        ask.amount,
        now,
      );
      const redemption = await trx
        .insertInto('voucher_redemptions')
        .values({
          id: ask.idempotencyKey !== undefined ? derivedId('rdm', `${voucherId}:${ask.idempotencyKey}`) : newId('rdm'),
          voucher_id: voucherId,
          amount: d.amount?.amount ?? null,
          currency_code: d.amount?.currency_code ?? null,
          redeemed_at: now,
          idempotency_key: ask.idempotencyKey ?? null,
          request: ask.idempotencyKey !== undefined ? (ask.request ?? null) : null,
          staff_id: ask.staff?.id ?? null,
          staff_name: ask.staff?.name ?? null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const updated = await trx
        .updateTable('vouchers')
        .set({ status: d.status, redeemed_at: d.status === 'redeemed' ? now : null, balance_amount: d.balanceAfter, updated_at: now })
        .where('id', '=', voucherId)
        .returningAll()
        .executeTakeFirstOrThrow();
      await appendOfferEvent(trx, {
        key: `redemption:${redemption.id}`,
        offerId: voucher.offer_id,
        type: 'voucher.redeemed',
        data: eventData(updated, redemption),
      });
      return (await withRedemptions(trx, [updated]))[0];
    }),
  );
}

/**
 * Rolls one redemption back, in one transaction: a gift card's amount returns to its balance, a
 * deal or coupon is `acquired` again; the voucher is `acquired` with redeemed_at null either way.
 * Refused as `rules.decideRollback` says (rolled back before, past the window, a cancelled voucher or order).
 */
export async function rollbackRedemption(
  db: Db,
  voucherId: string,
  redemptionId: string,
  windowHours: number,
  rules: RedemptionRules,
): Promise<VoucherWithRedemptions | Refused> {
  return refusable(() =>
    db.transaction().execute(async (trx) => {
      const { offer_type: _t, offer_document: _d, ...voucher } = await lockVoucher(trx, voucherId);
      const asked = await trx
        .selectFrom('voucher_redemptions')
        .selectAll()
        .where('id', '=', redemptionId)
        .where('voucher_id', '=', voucherId)
        .executeTakeFirst();
      // The order's status, read after the voucher's lock: a cancellation that held it has committed
      // by now (and one that comes later sees the voucher acquired and cancels it).
      const orderStatus = await orderStatusOf(trx, voucherId);
      const now = new Date();
      const redemption = rules.decideRollback({ redemption: asked, voucherStatus: voucher.status, orderStatus }, now, windowHours);
      const rolledBack = await trx
        .updateTable('voucher_redemptions')
        .set({ rolled_back_at: now })
        .where('id', '=', redemptionId)
        .returningAll()
        .executeTakeFirstOrThrow();
      const updated = await trx
        .updateTable('vouchers')
        .set((eb) => ({
          status: 'acquired' as const,
          redeemed_at: null,
          updated_at: now,
          ...(redemption.amount !== null && { balance_amount: eb('balance_amount', '+', redemption.amount) }),
        }))
        .where('id', '=', voucherId)
        .returningAll()
        .executeTakeFirstOrThrow();
      await appendOfferEvent(trx, {
        key: `redemption-rollback:${redemptionId}`,
        offerId: voucher.offer_id,
        type: 'voucher.redemption_rolled_back',
        data: eventData(updated, rolledBack),
      });
      return (await withRedemptions(trx, [updated]))[0];
    }),
  );
}

/** Those of these vouchers with a redemption not rolled back (such a gift card is used: not cancelled). */
export async function withLiveRedemptions(trx: Trx, voucherIds: string[]): Promise<Set<string>> {
  if (voucherIds.length === 0) return new Set();
  const rows = await trx
    .selectFrom('voucher_redemptions')
    .select('voucher_id')
    .distinct()
    .where('voucher_id', 'in', voucherIds)
    .where('rolled_back_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.voucher_id));
}

/** A redemption made at the counter, as the counter's list of the day shows it. */
export type CounterRedemption = VoucherRedemptionRow & { redemption_code: string; offer_id: string; title: string };

/** The redemptions this staff member made since `since`, newest first (at most 200). */
export function staffRedemptionsSince(db: Db, staffId: string, since: Date): Promise<CounterRedemption[]> {
  return db
    .selectFrom('voucher_redemptions as r')
    .innerJoin('vouchers as v', 'v.id', 'r.voucher_id')
    .innerJoin('offers as o', 'o.id', 'v.offer_id')
    .selectAll('r')
    .select(['v.redemption_code', 'v.offer_id', 'o.title'])
    .where('r.staff_id', '=', staffId)
    .where('r.redeemed_at', '>=', since)
    .orderBy('r.redeemed_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(200)
    .execute();
}
