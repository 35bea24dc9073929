import { requireActiveAccount, type AccountStatus } from './account-lifecycle';
import { unsellableReason } from './offer-lifecycle';

/*
 * Who may buy or reserve what. An order or a hold is checked inside its own transaction, under
 * the locks of the rows it reads (store/orders.ts, store/reservations.ts), so nothing changes
 * between the check and the write; the data layer applies the rules its caller hands in.
 */

export interface SaleRules {
  /** Refuses (throws a Failure on account_id) unless this account may buy or reserve. */
  requireAccount(accountId: string, account: { status: AccountStatus } | undefined): void;
  /** Why publishers may not buy or reserve this offer on `today`, or undefined when they may. */
  unsellableReason(offer: { status: string; start_date: string; end_date: string } | undefined, today: string): string | undefined;
}

/** The rules of spec 3.2: an active account, an approved or resumed offer within its dates. */
export const saleRules: SaleRules = { requireAccount: requireActiveAccount, unsellableReason };
