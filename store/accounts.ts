import type { AccountRow } from './database';
import type { Db } from './db';
import type { Page } from '../domain/paging';
import { pageOf } from './paging';

/** The account fields the API shows (client_id stays internal). */
export function toAccount(a: AccountRow) {
  return {
    id: a.id,
    name: a.name,
    website_url: a.website_url,
    status: a.status,
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
    activated_at: a.activated_at?.toISOString() ?? null,
    cancelled_at: a.cancelled_at?.toISOString() ?? null,
  };
}

export function findAccount(db: Db, clientId: string, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).where('client_id', '=', clientId).executeTakeFirst();
}

export async function listAccounts(db: Db, clientId: string, q: Page & { status?: AccountRow['status'] }) {
  let query = db.selectFrom('accounts').where('client_id', '=', clientId);
  if (q.status) query = query.where('status', '=', q.status);
  const { rows, total } = await pageOf(query, q, (f) => f.selectAll().orderBy('created_at', 'desc').orderBy('id'));
  return { rows: rows.map(toAccount), total };
}
