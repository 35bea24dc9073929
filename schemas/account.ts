import { z } from 'zod';
import type { AccountRow } from '../store/database';
import { ACCOUNT_STATUSES } from '../domain/account-lifecycle';
import { HttpUrl, Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';
import { PageQuery } from './pagination';

/** A publisher hosted by a distribution platform (spec §2.3); states in docs/orders-and-vouchers.md. */
export const AccountStatus = z.enum(ACCOUNT_STATUSES);
export type AccountStatus = z.infer<typeof AccountStatus>;

const fields = {
  name: z.string().trim().min(1).max(200),
  website_url: HttpUrl.optional(),
};

export const AccountCreate = z.object(fields);
export const AccountUpdate = z
  .object({ name: fields.name.optional(), website_url: fields.website_url, status: AccountStatus.optional() })
  .refine((u) => Object.keys(u).length > 0, { message: 'nothing to change' });
export type AccountUpdate = z.infer<typeof AccountUpdate>;

export const AccountCreateBody = wrappedBody('account', AccountCreate).meta({
  examples: [{ account: { name: 'Deals Blog', website_url: 'https://deals-blog.example' } }],
});
export const AccountUpdateBody = wrappedBody('account', AccountUpdate);

export const Account = z.object({
  id: z.string(),
  name: z.string(),
  website_url: z.string().nullable(),
  status: AccountStatus,
  created_at: Timestamp,
  updated_at: Timestamp,
  activated_at: Timestamp.nullable(),
  cancelled_at: Timestamp.nullable(),
});

export const AccountResponse = okEnvelope('account', Account);
export const AccountList = listEnvelope('accounts', Account);
export const AccountListQuery = PageQuery.extend({ status: AccountStatus.optional() });

/** The account fields the API shows (client_id stays internal). */
export function toAccount(a: AccountRow): z.output<typeof Account> {
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
