import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Trx } from './db';
import type { VoucherRow } from './database';
import type { Page, Paged } from '../domain/paging';
import { codeSuppliedMeanwhile, requireAppendable, requireCodesFree } from '../domain/supplied-codes';
import { appendOfferEvent } from './offer-events';
import { newId } from './ids';
import { lockOffers, moveStock, type LockedOffer } from './offer-stock';
import { unnestRows } from './unnest';
import type { AvailableCode } from '../domain/order-state';
import { pageOf } from './paging';

/*
 * Voucher codes an advertiser supplied for an offer (spec 2.1 `vouchers`). Such an offer sells
 * exactly these codes: its stock is the number not yet issued, orders take them first-in
 * first-out, and each is issued once. A code is unique per advertiser, across its offers. A bulk
 * import's batch (docs/bulk-vouchers.md) adds its codes in one statement, skipping the ones the
 * advertiser already has instead of failing, and says which were skipped and why.
 */

/** A code as the advertiser sends it; without a barcode, it is its own (domain/barcodes.ts). */
export interface SuppliedCode {
  redemption_code: string;
  barcode?: string;
}

/** A supplied code as its advertiser sees it: `available` until issued, then its voucher's status. */
export interface SuppliedVoucherState {
  id: string;
  offer_id: string;
  redemption_code: string;
  barcode: string | null;
  status: 'available' | VoucherRow['status'];
  redeemed_at: Date | null;
  cancelled_at: Date | null;
}

/** How many codes an offer was supplied with, and how many are not issued yet. */
export interface SuppliedCounts {
  total: number;
  available: number;
}

const MAX_NAMED = 20;

/** Whether the offer sells supplied codes (was given any). */
export async function hasSuppliedCodes(db: Db | Trx, offerId: string): Promise<boolean> {
  return !!(await db.selectFrom('supplied_vouchers').select('id').where('offer_id', '=', offerId).limit(1).executeTakeFirst());
}

/** Refuses codes this advertiser already supplied (for this or another offer), naming them. */
async function refuseTaken(trx: Trx, advertiserId: string, codes: SuppliedCode[]): Promise<void> {
  const taken = await trx
    .selectFrom('supplied_vouchers')
    .select(['redemption_code', 'offer_id'])
    .where('advertiser_id', '=', advertiserId)
    .where('redemption_code', '=', sql<string>`any(${sql.val(codes.map((c) => c.redemption_code))}::text[])`)
    .limit(MAX_NAMED)
    .execute();
  requireCodesFree(taken, MAX_NAMED);
}

/**
 * Stores the offer's supplied codes in upload order: one statement whatever their number (arrays
 * unnested server-side), refusing codes already supplied. Runs inside the caller's transaction.
 */
export async function insertSuppliedCodes(trx: Trx, o: { offerId: string; advertiserId: string; codes: SuppliedCode[] }): Promise<void> {
  if (o.codes.length === 0) return;
  await refuseTaken(trx, o.advertiserId, o.codes);
  const ids = o.codes.map(() => newId('vch'));
  try {
    // WITH ORDINALITY keeps the upload order in `sequence` (first in, first out).
    await sql`
      insert into supplied_vouchers (id, offer_id, advertiser_id, redemption_code, barcode)
      select u.id, ${o.offerId}, ${o.advertiserId}, u.code, u.barcode
      from unnest(${sql.val(ids)}::text[], ${sql.val(o.codes.map((c) => c.redemption_code))}::text[],
                  ${sql.val(o.codes.map((c) => c.barcode ?? null))}::text[]) with ordinality as u(id, code, barcode, n)
      order by u.n`.execute(trx);
    await trx.updateTable('offers').set({ sells_supplied_codes: true }).where('id', '=', o.offerId).execute();
  } catch (err) {
    // Two uploads racing with the same code: the unique constraint decides, the loser is told why.
    if ((err as { constraint?: string }).constraint === 'supplied_vouchers_advertiser_code') codeSuppliedMeanwhile();
    throw err;
  }
}

/**
 * Appends codes to a withdrawn offer that sells supplied codes, in one transaction: the codes, the
 * stock and `initial_quantity` (column and document) grow by their number, with a stock event.
 */
export async function appendSuppliedCodes(db: Db, o: { offerId: string; codes: SuppliedCode[] }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const offer = (await lockOffers(trx, [o.offerId])).get(o.offerId)!;
    // Checked under the offer's lock: a resubmission racing this append waits for it, or wins.
    const first = await trx.selectFrom('supplied_vouchers').select('advertiser_id').where('offer_id', '=', o.offerId).executeTakeFirst();
    requireAppendable(offer.status, first !== undefined);
    await insertSuppliedCodes(trx, { offerId: o.offerId, advertiserId: first!.advertiser_id, codes: o.codes });
    await growSuppliedStock(trx, offer, o.codes.length, {
      stockKey: `vouchers-supplied:${newId('key')}`,
      eventKey: `vouchers-supplied-edit:${newId('key')}`,
      reason: 'vouchers_supplied',
    });
  });
}

/**
 * The offer (locked by the caller) sells `n` more supplied codes: its stock and initial_quantity
 * (column and document) grow by them, with their stock event and `offer.updated`.
 */
export async function growSuppliedStock(
  trx: Trx,
  offer: LockedOffer,
  n: number,
  e: { stockKey: string; eventKey: string; reason: string },
): Promise<void> {
  await trx
    .updateTable('offers')
    .set({
      sells_supplied_codes: true,
      initial_quantity: sql`coalesce(initial_quantity, 0) + ${n}`,
      document: sql`jsonb_set(document, '{initial_quantity}', to_jsonb(coalesce((document->>'initial_quantity')::int, 0) + ${n}))`,
    })
    .where('id', '=', offer.id)
    .execute();
  await moveStock(trx, offer, { stock: n, reserved: 0, key: e.stockKey, reason: e.reason });
  await appendOfferEvent(trx, {
    key: e.eventKey,
    offerId: offer.id,
    type: 'offer.updated',
    data: { changed_fields: ['vouchers', 'initial_quantity'] },
  });
}

/**
 * For a batch of orders: each offer's oldest unissued codes, as many as the batch asks (`need`),
 * locked (SKIP LOCKED keeps any other taker off them), oldest first; one statement. The plan gives
 * them to the vouchers (domain/order-vouchers.ts) and markCodesIssued writes it.
 */
export async function lockAvailableCodes(trx: Trx, needs: { offer_id: string; need: number }[]): Promise<Map<string, AvailableCode[]>> {
  const out = new Map<string, AvailableCode[]>();
  if (needs.length === 0) return out;
  const { rows } = await sql<AvailableCode & { offer_id: string }>`
    select c.offer_id, c.id, c.redemption_code, c.barcode
    from ${unnestRows('w', { offer_id: 'text', need: 'int' }, needs)}
    cross join lateral (select s.offer_id, s.id, s.redemption_code, s.barcode, s.sequence from supplied_vouchers s
                        where s.offer_id = w.offer_id and s.order_id is null
                        order by s.sequence limit w.need for update skip locked) c
    order by c.offer_id, c.sequence`.execute(trx);
  for (const { offer_id, ...code } of rows) out.set(offer_id, [...(out.get(offer_id) ?? []), code]);
  return out;
}

/** Marks the codes a batch issued (each code's id is its voucher's), one statement. */
export async function markCodesIssued(trx: Trx, issued: { id: string; order_id: string }[]): Promise<void> {
  if (issued.length === 0) return;
  await sql`update supplied_vouchers s set order_id = i.order_id
    from ${unnestRows('i', { id: 'text', order_id: 'text' }, issued)} where s.id = i.id`.execute(trx);
}

const joined = (db: Db) => db.selectFrom('supplied_vouchers as s').leftJoin('vouchers as v', 'v.id', 's.id');

const stateOf = (q: ReturnType<typeof joined>) =>
  q.select([
    's.id',
    's.offer_id',
    's.redemption_code',
    's.barcode',
    sql<SuppliedVoucherState['status']>`coalesce(v.status, 'available')`.as('status'),
    'v.redeemed_at',
    'v.cancelled_at',
  ]);

/** One page of the offer's supplied codes, in upload order, with their state. */
export function listSuppliedCodes(db: Db, offerId: string, page: Page): Promise<Paged<SuppliedVoucherState>> {
  return pageOf(joined(db).where('s.offer_id', '=', offerId), page, (q) => stateOf(q).orderBy('s.sequence'));
}

/** For each of these offers that has supplied codes: its first `limit` codes (upload order) and its counts. */
export async function suppliedCodesOf(
  db: Db,
  offerIds: string[],
  limit: number,
): Promise<Map<string, { codes: SuppliedVoucherState[]; counts: SuppliedCounts }>> {
  const out = new Map<string, { codes: SuppliedVoucherState[]; counts: SuppliedCounts }>();
  if (offerIds.length === 0) return out;
  const [counts, firsts] = await Promise.all([
    db
      .selectFrom('supplied_vouchers')
      .select(['offer_id', sql<string>`count(*)`.as('total'), sql<string>`count(*) filter (where order_id is null)`.as('available')])
      .where('offer_id', 'in', offerIds)
      .groupBy('offer_id')
      .execute(),
    db
      .selectFrom(
        stateOf(joined(db))
          .select(sql<string>`row_number() over (partition by s.offer_id order by s.sequence)`.as('n'))
          .where('s.offer_id', 'in', offerIds)
          .as('x'),
      )
      .selectAll()
      .where('x.n', '<=', String(limit))
      .orderBy('x.offer_id')
      .orderBy('x.n')
      .execute(),
  ]);
  for (const c of counts) out.set(c.offer_id, { codes: [], counts: { total: Number(c.total), available: Number(c.available) } });
  for (const { n: _n, ...code } of firsts) out.get(code.offer_id)?.codes.push(code);
  return out;
}

export interface ImportedCode {
  row: number;
  code: string;
  barcode: string | null;
}

export type Skipped = { row: number; code: string; reason: 'repeated_in_file' | 'already_supplied' };

/**
 * Inserts the codes (distinct within the batch), skipping those the advertiser already has
 * (unique index on advertiser and code): a skipped code brought by this same import is one
 * repeated in the file, any other is already the advertiser's. Inside the caller's transaction.
 * In code order, whatever the file's: two imports of one advertiser that bring the same codes
 * wait on them in one order, never each on the other's (decision 0071).
 */
export async function insertImportedCodes(
  trx: Trx,
  o: { offerId: string; advertiserId: string; importId: string; codes: ImportedCode[] },
): Promise<{ inserted: number; skipped: Skipped[] }> {
  if (o.codes.length === 0) return { inserted: 0, skipped: [] };
  const ids = newIds('vch', o.codes.length);
  const offered = o.codes.map((c, i) => ({ ...c, id: ids[i] }));
  // Only the count comes back (one row, not one per code): the skipped codes are asked for apart,
  // and only when some were skipped, which a clean file never has.
  const { rows: count } = await sql<{ n: number }>`
    with ins as (
      insert into supplied_vouchers (id, offer_id, advertiser_id, redemption_code, barcode, import_id)
      select u.id, ${o.offerId}, ${o.advertiserId}, u.code, u.barcode, ${o.importId}
      from ${unnestRows('u', { id: 'text', code: 'text', barcode: 'text' }, offered)}
      order by u.code
      on conflict (advertiser_id, redemption_code) do nothing
      returning 1)
    select count(*)::int as n from ins`.execute(trx);
  const inserted = count[0].n;
  if (inserted === o.codes.length) return { inserted, skipped: [] };
  // A code skipped is one whose row under the advertiser is not the row just offered for it.
  const { rows: owners } = await sql<{ row: string; code: string; mine: boolean }>`
    select u.row, u.code, coalesce(s.import_id = ${o.importId}, false) as mine
    from ${unnestRows('u', { id: 'text', code: 'text', row: 'bigint' }, offered)}
    join supplied_vouchers s on s.advertiser_id = ${o.advertiserId} and s.redemption_code = u.code
    where s.id <> u.id
    order by u.row`.execute(trx);
  return {
    inserted,
    skipped: owners.map((r) => ({ row: Number(r.row), code: r.code, reason: r.mine ? 'repeated_in_file' : 'already_supplied' })),
  };
}

/** `n` ids as newId makes them, from one buffer of random bytes (one call instead of `n`: 12 bytes are 16 base64url characters). */
function newIds(prefix: string, n: number): string[] {
  const text = crypto.randomBytes(12 * n).toString('base64url');
  return Array.from({ length: n }, (_, i) => `${prefix}_${text.slice(16 * i, 16 * i + 16)}`);
}
