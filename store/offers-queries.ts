import type { OfferRow } from './database';
import type { Db } from './db';
import type { OfferInput, OfferStatus, SubmissionOffer } from '../schemas/offer';
import { pageBounds, type PageQuery } from '../schemas/pagination';

/** The offer as its advertiser sees it on the submission interface. */
export function toSubmissionOffer(row: OfferRow): SubmissionOffer {
  const doc = row.document as OfferInput;
  return {
    ...doc,
    id: row.id,
    status: row.status as OfferStatus,
    advertiser: { ...doc.advertiser, id: row.advertiser_id },
    quantity_in_stock: row.quantity_in_stock,
    reserved_quantity: row.reserved_quantity,
    created_at: row.created_at,
    updated_at: row.updated_at,
    submitted_at: row.submitted_at,
    reviewed_at: row.reviewed_at,
    rejection_reason: row.rejection_reason,
    published_at: row.published_at,
    closed_at: row.closed_at,
  };
}

/** One offer of this submission client; another client's offer is not found. */
export function findClientOffer(db: Db, clientId: string, offerId: string): Promise<OfferRow | undefined> {
  return db.selectFrom('offers').selectAll().where('id', '=', offerId).where('client_id', '=', clientId).executeTakeFirst();
}

export async function listClientOffers(db: Db, clientId: string, q: PageQuery & { status?: string[]; type?: string[] }) {
  let query = db.selectFrom('offers').where('client_id', '=', clientId);
  if (q.status?.length) query = query.where('status', 'in', q.status);
  if (q.type?.length) query = query.where('type', 'in', q.type);
  const { limit, offset } = pageBounds(q);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.n };
}
