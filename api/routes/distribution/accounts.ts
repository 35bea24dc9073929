import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { newId } from '../../../store/ids';
import type { AccountRow } from '../../../store/database';
import type { ServiceDeps } from '../../../services/deps';
import { conflict, notFound } from '../../errors';
import { findAccount, listAccounts, toAccount } from '../../../store/accounts';
import {
  AccountCreateBody,
  AccountList,
  AccountListQuery,
  AccountResponse,
  AccountUpdateBody,
  type AccountStatus,
} from '../../../schemas/account';
import { IdParam } from '../../../schemas/common';
import { listReply, OkOnly } from '../../../schemas/envelope';

/** Account moves the owning distribution client may make (docs/orders-and-vouchers.md). */
const MOVES: Record<AccountStatus, AccountStatus[]> = { pending: ['active', 'cancelled'], active: ['cancelled'], cancelled: [] };

const Params = z.object({ id: IdParam });

/** Accounts: a platform's publishers, owned by the distribution client that created them. */
export const accountRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const { db } = deps;
  const mine = async (clientId: string, id: string) => (await findAccount(db, clientId, id)) ?? Promise.reject(notFound('account'));

  /** Applies a change if the account is still in the status it was read in (no lost update). */
  async function change(row: AccountRow, u: { name?: string; website_url?: string; status?: AccountStatus }) {
    if (row.status === 'cancelled') throw conflict('invalid_state_transition', 'a cancelled account cannot change any more');
    if (u.status && u.status !== row.status && !MOVES[row.status].includes(u.status)) {
      throw conflict(
        'invalid_state_transition',
        `an account that is ${row.status} can move to ${MOVES[row.status].join(', ')}, not ${u.status}`,
      );
    }
    const now = new Date();
    const moved = u.status && u.status !== row.status;
    const updated = await db
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
    if (!updated) throw conflict('conflict', 'the account changed meanwhile; read it and retry');
    return updated;
  }

  app.post('/accounts', { schema: { body: AccountCreateBody, response: { 200: AccountResponse } } }, async (request) => {
    const { name, website_url } = request.body.account;
    const row = await db
      .insertInto('accounts')
      .values({ id: newId('acc'), client_id: request.client.id, name, website_url: website_url ?? null, status: 'pending' })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { status: 'OK' as const, account: toAccount(row) };
  });

  app.get('/accounts', { schema: { querystring: AccountListQuery, response: { 200: AccountList } } }, async (request) => {
    return listReply('accounts', await listAccounts(db, request.client.id, request.query), request.query);
  });

  app.get('/accounts/:id', { schema: { params: Params, response: { 200: AccountResponse } } }, async (request) => ({
    status: 'OK' as const,
    account: toAccount(await mine(request.client.id, request.params.id)),
  }));

  app.put('/accounts/:id', { schema: { params: Params, body: AccountUpdateBody, response: { 200: AccountResponse } } }, async (request) => {
    const row = await mine(request.client.id, request.params.id);
    return { status: 'OK' as const, account: toAccount(await change(row, request.body.account)) };
  });

  // DELETE cancels: orders and vouchers keep naming the account, so the row stays (status cancelled).
  app.delete('/accounts/:id', { schema: { params: Params, response: { 200: OkOnly } } }, async (request) => {
    const row = await mine(request.client.id, request.params.id);
    if (row.status !== 'cancelled') await change(row, { status: 'cancelled' });
    return { status: 'OK' as const };
  });
};
