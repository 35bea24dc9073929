import { conflict, invalidField } from './failures';

/*
 * A publisher account's states (docs/orders-and-vouchers.md): created pending, activated by its
 * distribution client, cancelled for good. Orders and reservations need an active account.
 */

export const ACCOUNT_STATUSES = ['pending', 'active', 'cancelled'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** Account moves the owning distribution client may make, by current status. */
export const ACCOUNT_MOVES: Readonly<Record<AccountStatus, readonly AccountStatus[]>> = {
  pending: ['active', 'cancelled'],
  active: ['cancelled'],
  cancelled: [],
};

/** Why the account may not move from `from` to `to` (undefined: it may, or it stays where it is). */
export function accountMoveError(from: AccountStatus, to: AccountStatus | undefined): string | undefined {
  if (from === 'cancelled') return 'a cancelled account cannot change any more';
  if (!to || to === from || ACCOUNT_MOVES[from].includes(to)) return undefined;
  return `an account that is ${from} can move to ${ACCOUNT_MOVES[from].join(', ')}, not ${to}`;
}

/** Refuses (throws invalid_field on account_id) unless the account exists and is active. */
export function requireActiveAccount(accountId: string, account: { status: AccountStatus } | undefined): void {
  if (!account) throw invalidField('account_id', `account ${accountId} not found`);
  if (account.status !== 'active') throw invalidField('account_id', `account ${accountId} is ${account.status}, not active`);
}

/** Refuses (throws) a change the account's status does not allow. */
export function requireAccountMove(from: AccountStatus, to: AccountStatus | undefined): void {
  const refused = accountMoveError(from, to);
  if (refused) throw conflict('invalid_state_transition', refused);
}
