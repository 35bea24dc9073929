import { sql } from 'kysely';
import type { OfferRow } from './database';
import type { Db, Trx } from './db';
import { alreadyDone, appendOfferEvent } from './offer-events';
import { lockOffer } from './offer-stock';
import { insertReviewTeamComment } from './comments';
import { SELLABLE, type OfferStatus } from '../domain/offer-lifecycle';
import type { OfferDocument } from '../domain/offer';
import type { Page, Paged } from '../domain/paging';
import { writeSearchRows } from './offer-search-rows';
import { pageOf } from './paging';
import { ensureAdvertiser, renameAdvertiser } from './advertisers';
import { hasSuppliedCodes, insertSuppliedCodes, type SuppliedCode } from './supplied-vouchers';
import { requireAdvertiserKept, requireMediaHeld } from '../domain/offer-edits';
import { endClosedOutReservations, endOfferReservations } from './reservations';
import { holdLiveAttachments } from './attachments';
import { appendReviewStep, reviewSlaSeconds, reviewStepOf } from './offer-reviews';

/*
 * The offers table, written with its search rows (store/offer-search-rows.ts). Every write to an
 * offer is one transaction that also appends its offer-change event to the outbox (offer_events).
 * The review queue's reads are in store/review-queue.ts. The API uses `insertOffer`; the review
 * workflow's activities the rest, with a key derived from workflow and step (a retry changes nothing twice).
 */

/**
 * The offer's advertiser (store/advertisers.ts): the one named by `advertiser.id` (checked by the
 * service to be the client's), else on an edit the offer's current one, else the client's
 * advertiser of that name, created on first use. The advertiser takes the name the offer gives it.
 */
async function advertiserOf(
  trx: Trx,
  clientId: string,
  input: OfferDocument,
  edit?: { currentId: string; sent: boolean },
): Promise<string> {
  const id = input.advertiser.id ?? edit?.currentId;
  if (!id) return ensureAdvertiser(trx, clientId, input.advertiser.name);
  // Only a name the client sent now renames: another offer's stale copy of the name must not undo a rename.
  if (!edit || edit.sent) await renameAdvertiser(trx, clientId, id, input.advertiser.name);
  return id;
}

/** Holds the offer's media while it is written (store/attachments.ts); one deleted since the service checked it is refused by name. */
async function holdMedia(trx: Trx, clientId: string, input: OfferDocument): Promise<void> {
  const ids = (input.creative?.original_media ?? []).map((m) => m.id);
  const [gone] = await holdLiveAttachments(trx, clientId, ids);
  requireMediaHeld(gone, ids);
}

function columnsOf(input: OfferDocument) {
  // The advertiser's id lives in the offers.advertiser_id column only, so the document never holds a stale one.
  const { id: _id, ...advertiser } = input.advertiser;
  return {
    type: input.type,
    title: input.title,
    start_date: input.start_date,
    end_date: input.end_date,
    price_amount: input.price?.amount ?? null,
    currency_code: input.price?.currency_code ?? null,
    document: JSON.stringify({ ...input, advertiser }),
  };
}

/**
 * A new offer, pending review, with its search rows, its advertiser, the voucher codes the
 * advertiser supplied (if any) and its `offer.created` event, in one transaction.
 */
export async function insertOffer(
  db: Db,
  o: { id: string; clientId: string; input: OfferDocument; suppliedCodes?: SuppliedCode[] },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await holdMedia(trx, o.clientId, o.input);
    const advertiserId = await advertiserOf(trx, o.clientId, o.input);
    await trx
      .insertInto('offers')
      .values({
        id: o.id,
        client_id: o.clientId,
        advertiser_id: advertiserId,
        status: 'pending',
        initial_quantity: o.input.initial_quantity ?? null,
        quantity_in_stock: o.input.initial_quantity ?? null,
        review_due_at: sql<Date>`now() + make_interval(secs => ${await reviewSlaSeconds(trx)})`,
        ...columnsOf(o.input),
      })
      .execute();
    await appendReviewStep(trx, { key: `offer-created:${o.id}`, offerId: o.id, kind: 'submitted', actor: 'advertiser' });
    await writeSearchRows(trx, o.id, o.input);
    await insertSuppliedCodes(trx, { offerId: o.id, advertiserId, codes: o.suppliedCodes ?? [] });
    await appendOfferEvent(trx, { key: `offer-created:${o.id}`, offerId: o.id, type: 'offer.created', data: { status: 'pending' } });
  });
}

/** Drops an offer whose review workflow could not be started, so no half-created offer remains. */
export async function deleteUnstartedOffer(db: Db, offerId: string): Promise<void> {
  await db.deleteFrom('offers').where('id', '=', offerId).where('status', '=', 'pending').execute();
}

/** One status move of an offer, keyed for idempotency (workflow id + step). */
export interface StatusChange {
  key: string;
  offerId: string;
  to: OfferStatus;
  actor: 'advertiser' | 'review_team' | 'system';
  reviewer?: string;
  reason?: string;
  /**
   * Approved or resumed before its start_date: not published yet. The review workflow publishes it
   * when that day begins (`publishOffer`). Absent for workflows started before that timer existed.
   */
  publishDeferred?: boolean;
}

/**
 * Moves the offer to a new status, stamping review and publication times; one event, the review
 * team's `comment` when the decision leaves one (domain/review-decisions.ts), and for a cancelled
 * or closed offer the end of its reservations, in the same transaction.
 */
export async function changeOfferStatus(
  db: Db,
  c: StatusChange,
  comment?: { authorName: string; content: string },
): Promise<{ reviewDueAt: Date | null }> {
  return db.transaction().execute(async (trx) => {
    const dueNow = () =>
      trx.selectFrom('offers').select(['review_due_at as reviewDueAt']).where('id', '=', c.offerId).executeTakeFirstOrThrow();
    if (await alreadyDone(trx, c.key)) return dueNow();
    const row = await lockOffer(trx, c.offerId, ['status', 'published_at', 'submitted_at', 'category_ids']);
    const now = new Date();
    const reviewed = c.actor === 'review_team';
    // First publication: on approval, unless deferred to start_date; or on a resume after its start_date came while it was suspended.
    const publishes = !row.published_at && SELLABLE.includes(c.to) && !c.publishDeferred;
    await trx
      .updateTable('offers')
      .set({
        status: c.to,
        updated_at: now,
        ...(c.to === 'pending'
          ? { submitted_at: now, rejection_reason: null, review_due_at: new Date(now.getTime() + (await reviewSlaSeconds(trx)) * 1000) }
          : { review_due_at: null }),
        ...(reviewed
          ? {
              reviewed_at: now,
              reviewed_by: c.reviewer ?? 'review team',
              rejection_reason: c.to === 'rejected' ? (c.reason ?? null) : null,
            }
          : {}),
        ...(publishes ? { published_at: now } : {}),
        ...(c.to === 'closed' ? { closed_at: now } : {}),
      })
      .where('id', '=', c.offerId)
      .execute();
    // Nothing is sold from the holds of an offer that ended: they end with it, in this transaction.
    if (c.to === 'cancelled' || c.to === 'closed')
      await endOfferReservations(trx, {
        key: c.key,
        offerId: c.offerId,
        reason: c.to === 'cancelled' ? 'offer_cancelled' : 'offer_closed',
      });
    if (comment) await insertReviewTeamComment(trx, { key: c.key, offerId: c.offerId, ...comment });
    await appendReviewStep(trx, reviewStepOf(c, row, now));
    await appendOfferEvent(trx, {
      key: c.key,
      offerId: c.offerId,
      type: c.to === 'closed' ? 'offer.closed' : 'offer.status_changed',
      data: {
        old_status: row.status,
        new_status: c.to,
        actor: c.actor,
        ...(c.reason ? { reason: c.reason } : {}),
        ...(c.publishDeferred ? { publish_deferred: true } : {}),
      },
    });
    return dueNow();
  });
}

/** An edit that would take the stock below zero: the client must send another initial_quantity. */
export class StockConflictError extends Error {}

/**
 * Replaces the offer's fields with an edited version (status stays `withdrawn`). A changed
 * initial_quantity moves the stock by the same difference and may not take it below zero. An
 * exclusivity that leaves distributors out ends their reservations in the same transaction.
 */
export async function saveOfferFields(
  db: Db,
  e: { key: string; offerId: string; input: OfferDocument; changedFields: string[] },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (await alreadyDone(trx, e.key)) return;
    const row = await lockOffer(trx, e.offerId, ['client_id', 'advertiser_id', 'initial_quantity', 'quantity_in_stock']);
    await holdMedia(trx, row.client_id, e.input);
    const advertiserId = await advertiserOf(trx, row.client_id, e.input, {
      currentId: row.advertiser_id,
      sent: e.changedFields.includes('advertiser'),
    });
    if (advertiserId !== row.advertiser_id) requireAdvertiserKept(true, await hasSuppliedCodes(trx, e.offerId));
    const initial = e.input.initial_quantity ?? null;
    let stock: number | null = initial;
    if (row.initial_quantity !== null && initial !== null && row.quantity_in_stock !== null) {
      stock = row.quantity_in_stock + (initial - row.initial_quantity);
      if (stock < 0)
        throw new StockConflictError(
          `initial_quantity ${initial} is below the ${row.initial_quantity - row.quantity_in_stock} units already sold or reserved`,
        );
    }
    await trx
      .updateTable('offers')
      .set({
        ...columnsOf(e.input),
        advertiser_id: advertiserId,
        initial_quantity: initial,
        quantity_in_stock: stock,
        updated_at: new Date(),
      })
      .where('id', '=', e.offerId)
      .execute();
    await writeSearchRows(trx, e.offerId, e.input);
    // Holds of distributors an exclusivity now leaves out end with this edit: no door stays open to them.
    await endClosedOutReservations(trx, { key: e.key, offerId: e.offerId, document: e.input });
    await appendReviewStep(trx, { key: e.key, offerId: e.offerId, kind: 'edited', actor: 'advertiser', changedFields: e.changedFields });
    await appendOfferEvent(trx, { key: e.key, offerId: e.offerId, type: 'offer.updated', data: { changed_fields: e.changedFields } });
  });
}

/**
 * Every pending review's due time from a new SLA (submitted_at + the SLA), in the caller's
 * transaction (store/offer-reviews.ts `setReviewSlaSeconds`); returns the offers and their new due times.
 */
export function moveReviewDueTimes(trx: Trx, slaSeconds: number): Promise<Array<{ id: string; review_due_at: Date | null }>> {
  return trx
    .updateTable('offers')
    .set({ review_due_at: sql<Date>`submitted_at + make_interval(secs => ${slaSeconds})` })
    .where('status', '=', 'pending')
    .returning(['id', 'review_due_at'])
    .execute();
}

/** The offers with these ids (any client's), as stored. */
export async function findOffersByIds(db: Db | Trx, ids: string[]): Promise<OfferRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('offers').selectAll().where('id', 'in', ids).execute();
}

/** One offer of this submission client; another client's offer is not found. */
export function findClientOffer(db: Db, clientId: string, offerId: string): Promise<OfferRow | undefined> {
  return db.selectFrom('offers').selectAll().where('id', '=', offerId).where('client_id', '=', clientId).executeTakeFirst();
}

/** One page of this client's offers, newest first, optionally limited to some statuses and types. */
export function listClientOffers(
  db: Db,
  clientId: string,
  q: Page & { status?: readonly string[]; type?: readonly string[] },
): Promise<Paged<OfferRow>> {
  let query = db.selectFrom('offers').where('client_id', '=', clientId);
  if (q.status?.length) query = query.where('status', 'in', q.status);
  if (q.type?.length) query = query.where('type', 'in', q.type);
  return pageOf(query, q, (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id'));
}

/** Any client's offer by id, as stored (operators' views). */
export function findOffer(db: Db, offerId: string): Promise<OfferRow | undefined> {
  return db.selectFrom('offers').selectAll().where('id', '=', offerId).executeTakeFirst();
}

/** The offer's current status, or undefined for an unknown id. */
export async function findOfferStatus(db: Db, offerId: string): Promise<string | undefined> {
  const row = await db.selectFrom('offers').select('status').where('id', '=', offerId).executeTakeFirst();
  return row?.status;
}
