import type { ServiceDeps } from './deps';
import type { Page, Paged } from '../domain/paging';
import { conflict, notFound } from '../domain/failures';
import { requireAccountMove, type AccountStatus } from '../domain/account-lifecycle';
import type { AccountRow } from '../store/database';
import { findAccount, insertAccount, listAccounts as listAccountRows, updateAccount } from '../store/accounts';
import { keyedRequestId } from '../store/ids';
import { toAccount } from '../schemas/account';

/*
 * A distribution client's publisher accounts. Orders and reservations name them; a cancelled
 * account keeps its row, so what names it stays readable.
 */

type Deps = Pick<ServiceDeps, 'db'>;
type AccountView = ReturnType<typeof toAccount>;
export type AccountChange = { name?: string; website_url?: string; status?: AccountStatus };

async function requireAccount(deps: Deps, clientId: string, id: string): Promise<AccountRow> {
  return (await findAccount(deps.db, clientId, id)) ?? Promise.reject(notFound('account'));
}

/** Applies a change the account's status allows, if it is still in the status it was read in. */
async function change(deps: Deps, row: AccountRow, u: AccountChange): Promise<AccountRow> {
  requireAccountMove(row.status, u.status);
  const updated = await updateAccount(deps.db, row, u);
  if (!updated) throw conflict('conflict', 'the account changed meanwhile; read it and retry');
  return updated;
}

/** A new pending account of this client. */
export async function createAccount(
  deps: Deps,
  clientId: string,
  a: { name: string; website_url?: string },
  keyedRequest?: string,
): Promise<AccountView> {
  // Named after a keyed request (decision 0080): its retry after a 5xx answers the first try's account.
  const id = keyedRequestId('acc', clientId, keyedRequest);
  const row = await insertAccount(deps.db, { id, clientId, name: a.name, websiteUrl: a.website_url ?? null });
  return toAccount(row ?? (await requireAccount(deps, clientId, id!)));
}

/** One account of this client (not_found otherwise). */
export async function getAccount(deps: Deps, clientId: string, id: string): Promise<AccountView> {
  return toAccount(await requireAccount(deps, clientId, id));
}

/** A page of this client's accounts. */
export async function listAccounts(deps: Deps, clientId: string, q: Page & { status?: AccountStatus }): Promise<Paged<AccountView>> {
  const { rows, total } = await listAccountRows(deps.db, clientId, q);
  return { rows: rows.map(toAccount), total };
}

/** Renames, re-links or moves the account (ACCOUNT_MOVES); a cancelled account no longer changes. */
export async function changeAccount(deps: Deps, clientId: string, id: string, u: AccountChange): Promise<AccountView> {
  return toAccount(await change(deps, await requireAccount(deps, clientId, id), u));
}

/** Cancels the account (already cancelled: nothing to do). Orders and vouchers keep naming it. */
export async function cancelAccount(deps: Deps, clientId: string, id: string): Promise<void> {
  const row = await requireAccount(deps, clientId, id);
  if (row.status !== 'cancelled') await change(deps, row, { status: 'cancelled' });
}
