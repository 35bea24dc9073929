import type { AccountRow } from './database';
import type { Db, Trx } from './db';
import type { Page, Paged } from '../domain/paging';
import type { AccountStatus } from '../domain/account-lifecycle';
import { newId } from './ids';
import { pageOf } from './paging';

/** The account of this distribution client; another client's account is not found. */
export function findAccount(db: Db | Trx, clientId: string, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
}

/** These accounts (any client's: the caller matches each to its own client), for a batch of orders. */
export function findAccounts(db: Db | Trx, ids: string[]): Promise<Pick<AccountRow, 'id' | 'client_id' | 'status'>[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('accounts').select(['id', 'client_id', 'status']).where('id', 'in', ids).execute();
}

/** This client's accounts, newest first. */
export function listAccounts(db: Db, clientId: string, q: Page & { status?: AccountStatus }): Promise<Paged<AccountRow>> {
  let query = db.selectFrom('accounts').where('client_id', '=', clientId);
  if (q.status) query = query.where('status', '=', q.status);
  return pageOf(query, q, (f) => f.selectAll().orderBy('created_at', 'desc').orderBy('id'));
}

/**
 * A new account, pending until its client activates it; `id` names it (a keyed request's), and an
 * account of that id already there is left as it is (undefined then: the caller reads it).
 */
export function insertAccount(
  db: Db,
  a: { id?: string; clientId: string; name: string; websiteUrl: string | null },
): Promise<AccountRow | undefined> {
  return db
    .insertInto('accounts')
    .values({ id: a.id ?? newId('acc'), client_id: a.clientId, name: a.name, website_url: a.websiteUrl, status: 'pending' })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * Applies a change if the account is still in the status it was read in (no lost update); a
 * status move stamps activated_at or cancelled_at. Undefined when the account changed meanwhile.
 */
export function updateAccount(
  db: Db,
  row: Pick<AccountRow, 'id' | 'status'>,
  u: { name?: string; website_url?: string; status?: AccountStatus },
): Promise<AccountRow | undefined> {
  const now = new Date();
  const moved = u.status && u.status !== row.status;
  return db
    .updateTable('accounts')
    .set({
      ...(u.name !== undefined ? { name: u.name } : {}),
      ...(u.website_url !== undefined ? { website_url: u.website_url } : {}),
      ...(moved ? { status: u.status, ...(u.status === 'active' ? { activated_at: now } : { cancelled_at: now }) } : {}),
      updated_at: now,
    })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .returningAll()
    .executeTakeFirst();
}
