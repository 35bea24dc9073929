import crypto from 'node:crypto';
import type { OfferRow } from './database';
import type { Db, Trx } from './db';
import { alreadyDone, appendOfferEvent } from './offer-events';
import { insertReviewTeamComment } from './comments';
import type { OfferStatus } from '../domain/offer-lifecycle';
import type { OfferDocument } from '../domain/offer';
import type { Page, Paged } from '../domain/paging';
import { geocodeLocation } from './geocode';
import { pageOf } from './paging';

/*
 * The offers table and its search rows (offer_locations, offer_categories). Every write to an
 * offer is one transaction that also appends its offer-change event to the outbox (offer_events).
 * The API uses `insertOffer`; the review workflow's activities use the rest, passing an
 * idempotency key derived from the workflow and step, so a retry changes nothing twice.
 */

/** The advertiser id: stable per submission client and advertiser name (agents submit for many). */
export function advertiserId(clientId: string, advertiserName: string): string {
  const h = crypto.createHash('sha256').update(`${clientId}\n${advertiserName.trim().toLowerCase()}`).digest('base64url');
  return `adv_${h.slice(0, 20)}`;
}

function columnsOf(input: OfferDocument) {
  return {
    type: input.type,
    title: input.title,
    start_date: input.start_date,
    end_date: input.end_date,
    price_amount: input.price?.amount ?? null,
    currency_code: input.price?.currency_code ?? null,
    document: JSON.stringify(input),
  };
}

/** The offer's redemption locations (geocoded) and categories, as the search reads them. */
async function writeSearchRows(trx: Trx, offerId: string, input: OfferDocument) {
  await trx.deleteFrom('offer_locations').where('offer_id', '=', offerId).execute();
  await trx.deleteFrom('offer_categories').where('offer_id', '=', offerId).execute();
  const locations = input.advertiser.redemption_locations.map((loc, position) => {
    const geo = geocodeLocation(loc);
    return {
      offer_id: offerId,
      position,
      city: loc.city?.trim().toLowerCase() ?? null,
      state_code: loc.state_code?.trim().toUpperCase() ?? null,
      postal_code: loc.postal_code?.trim().toUpperCase() ?? null,
      country_code: loc.country_code ?? null,
      latitude: geo?.latitude ?? null,
      longitude: geo?.longitude ?? null,
    };
  });
  if (locations.length) await trx.insertInto('offer_locations').values(locations).execute();
  const categoryIds = [...new Set(input.advertiser.categories.map((c) => c.id))];
  if (categoryIds.length)
    await trx
      .insertInto('offer_categories')
      .values(categoryIds.map((category_id) => ({ offer_id: offerId, category_id })))
      .execute();
}

/** A new offer, pending review, with its search rows and its `offer.created` event. */
export async function insertOffer(db: Db, o: { id: string; clientId: string; input: OfferDocument }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('offers')
      .values({
        id: o.id,
        client_id: o.clientId,
        advertiser_id: advertiserId(o.clientId, o.input.advertiser.name),
        status: 'pending',
        initial_quantity: o.input.initial_quantity ?? null,
        quantity_in_stock: o.input.initial_quantity ?? null,
        ...columnsOf(o.input),
      })
      .execute();
    await writeSearchRows(trx, o.id, o.input);
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
}

/** Moves the offer to a new status, stamping review and publication times; one event. */
export async function changeOfferStatus(db: Db, c: StatusChange): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (await alreadyDone(trx, c.key)) return;
    const row = await trx
      .selectFrom('offers')
      .select(['status', 'published_at'])
      .where('id', '=', c.offerId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const now = new Date();
    const reviewed = c.actor === 'review_team';
    await trx
      .updateTable('offers')
      .set({
        status: c.to,
        updated_at: now,
        ...(c.to === 'pending' ? { submitted_at: now, rejection_reason: null } : {}),
        ...(reviewed
          ? {
              reviewed_at: now,
              reviewed_by: c.reviewer ?? 'review team',
              rejection_reason: c.to === 'rejected' ? (c.reason ?? null) : null,
            }
          : {}),
        ...(c.to === 'approved' && !row.published_at ? { published_at: now } : {}),
        ...(c.to === 'closed' ? { closed_at: now } : {}),
      })
      .where('id', '=', c.offerId)
      .execute();
    if (c.to === 'rejected' && c.reason) {
      await insertReviewTeamComment(trx, {
        key: c.key,
        offerId: c.offerId,
        authorName: c.reviewer ?? 'Review team',
        content: `Rejected: ${c.reason}`,
      });
    }
    await appendOfferEvent(trx, {
      key: c.key,
      offerId: c.offerId,
      type: c.to === 'closed' ? 'offer.closed' : 'offer.status_changed',
      data: { old_status: row.status, new_status: c.to, actor: c.actor, ...(c.reason ? { reason: c.reason } : {}) },
    });
  });
}

/** An edit that would take the stock below zero: the client must send another initial_quantity. */
export class StockConflictError extends Error {}

/**
 * Replaces the offer's fields with an edited version (status stays `withdrawn`). A changed
 * initial_quantity moves the stock by the same difference and may not take it below zero.
 */
export async function saveOfferFields(
  db: Db,
  e: { key: string; offerId: string; input: OfferDocument; changedFields: string[] },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (await alreadyDone(trx, e.key)) return;
    const row = await trx
      .selectFrom('offers')
      .select(['client_id', 'initial_quantity', 'quantity_in_stock'])
      .where('id', '=', e.offerId)
      .forUpdate()
      .executeTakeFirstOrThrow();
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
        advertiser_id: advertiserId(row.client_id, e.input.advertiser.name),
        initial_quantity: initial,
        quantity_in_stock: stock,
        updated_at: new Date(),
      })
      .where('id', '=', e.offerId)
      .execute();
    await writeSearchRows(trx, e.offerId, e.input);
    await appendOfferEvent(trx, { key: e.key, offerId: e.offerId, type: 'offer.updated', data: { changed_fields: e.changedFields } });
  });
}

/** The review has waited past its SLA: an event (and a log line, by the caller) for operators. */
export async function recordReviewOverdue(db: Db, r: { key: string; offerId: string; waitingSeconds: number }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (await alreadyDone(trx, r.key)) return;
    await trx.selectFrom('offers').select('id').where('id', '=', r.offerId).forUpdate().executeTakeFirstOrThrow();
    await appendOfferEvent(trx, {
      key: r.key,
      offerId: r.offerId,
      type: 'offer.review_overdue',
      data: { waiting_seconds: r.waitingSeconds },
    });
  });
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

/** One page of the offers waiting for review, oldest submission first (the review console's queue). */
export function listPendingOffers(db: Db, page: Page) {
  return pageOf(db.selectFrom('offers').where('status', '=', 'pending'), page, (rows) =>
    rows.select(['id', 'title', 'type', 'document', 'submitted_at']).orderBy('submitted_at').orderBy('id'),
  );
}

/** The first `limit` offers waiting for review, oldest submission first (the admin CLI's list). */
export function pendingOffers(db: Db, limit: number) {
  return db
    .selectFrom('offers')
    .select(['id', 'title', 'type', 'client_id', 'submitted_at'])
    .where('status', '=', 'pending')
    .orderBy('submitted_at')
    .limit(limit)
    .execute();
}

/** An offer's status and review record, for operators; undefined for an unknown id. */
export function findReviewRecord(db: Db, offerId: string) {
  return db
    .selectFrom('offers')
    .select([
      'id',
      'title',
      'type',
      'status',
      'client_id',
      'advertiser_id',
      'quantity_in_stock',
      'submitted_at',
      'reviewed_at',
      'reviewed_by',
      'rejection_reason',
      'published_at',
      'closed_at',
    ])
    .where('id', '=', offerId)
    .executeTakeFirst();
}
