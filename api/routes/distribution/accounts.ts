import { cancelAccount, changeAccount, createAccount, getAccount, listAccounts } from '../../../services/accounts';
import { AccountCreateBody, AccountList, AccountListQuery, AccountResponse, AccountUpdateBody } from '../../../schemas/account';
import { IdParams } from '../../../schemas/common';
import { listReply, OkOnly, okReply, okOnlyReply } from '../../../schemas/envelope';
import { keyedRequestOf } from '../../plugins/idempotency';
import { operations, type RoutePlugin } from '../operation';

const op = operations('Accounts');

/** Accounts: a platform's publishers, owned by the distribution client that created them. */
export const accountRoutes: RoutePlugin = async (app, { deps }) => {
  app.post(
    '/accounts',
    op('createAccount', 'Create a publisher account', { body: AccountCreateBody, response: { 200: AccountResponse } }),
    async (request) => okReply('account', await createAccount(deps, request.client.id, request.body.account, keyedRequestOf(request))),
  );

  app.get(
    '/accounts',
    op('listAccounts', 'List accounts', { querystring: AccountListQuery, response: { 200: AccountList } }),
    async (request) => listReply('accounts', await listAccounts(deps, request.client.id, request.query), request.query),
  );

  app.get('/accounts/:id', op('getAccount', 'Get one account', { params: IdParams, response: { 200: AccountResponse } }), async (request) =>
    okReply('account', await getAccount(deps, request.client.id, request.params.id)),
  );

  app.put(
    '/accounts/:id',
    op('updateAccount', 'Change an account', { params: IdParams, body: AccountUpdateBody, response: { 200: AccountResponse } }),
    async (request) => okReply('account', await changeAccount(deps, request.client.id, request.params.id, request.body.account)),
  );

  // DELETE cancels: orders and vouchers keep naming the account, so the row stays (status cancelled).
  app.delete('/accounts/:id', op('cancelAccount', 'Cancel an account', { params: IdParams, response: { 200: OkOnly } }), (request) =>
    okOnlyReply(cancelAccount(deps, request.client.id, request.params.id)),
  );
};
