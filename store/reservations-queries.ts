import type { ReservationRow } from './database';
import type { Db } from './db';
import { pageBounds, type PageQuery } from '../schemas/pagination';

export function toReservation(r: ReservationRow) {
  return {
    id: r.id,
    offer_id: r.offer_id,
    account_id: r.account_id,
    quantity_reserved: r.quantity_reserved,
    quantity_in_stock: r.quantity_in_stock,
    start_date: r.start_date,
    end_date: r.end_date,
    creation_date: r.created_at.toISOString().slice(0, 10),
    status: r.status,
    ended_at: r.ended_at?.toISOString() ?? null,
  };
}

export function findReservation(db: Db, clientId: string, offerId: string, id: string): Promise<ReservationRow | undefined> {
  return db
    .selectFrom('reservations')
    .selectAll()
    .where('id', '=', id)
    .where('offer_id', '=', offerId)
    .where('client_id', '=', clientId)
    .executeTakeFirst();
}

export async function listReservations(
  db: Db,
  clientId: string,
  offerId: string,
  q: PageQuery & { status?: ReservationRow['status']; account_id?: string },
) {
  let query = db.selectFrom('reservations').where('client_id', '=', clientId).where('offer_id', '=', offerId);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.account_id) query = query.where('account_id', '=', q.account_id);
  const { limit, offset } = pageBounds(q);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(toReservation), total: count.n };
}
