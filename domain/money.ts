/*
 * Money and the distribution revenue rule (docs/distribution-offers.md): amounts are integer minor
 * units, so every share is computed on whole cents and rounded down.
 */

/** An amount in minor units (cents) with its ISO 4217 code. */
export interface Money {
  currency_code: string;
  amount: number;
}

/** Revenue shares in percent: of the price for the distributor, of that for its account. */
export interface RevenueShares {
  distributorPercent: number;
  accountPercent: number;
}

export const DEFAULT_REVENUE_SHARES: RevenueShares = { distributorPercent: 20, accountPercent: 50 };

/** The shares a deployment's settings name (DISTRIBUTOR_REVENUE_PERCENT, ACCOUNT_REVENUE_PERCENT). */
export function revenueShares(settings: { DISTRIBUTOR_REVENUE_PERCENT: number; ACCOUNT_REVENUE_PERCENT: number }): RevenueShares {
  return { distributorPercent: settings.DISTRIBUTOR_REVENUE_PERCENT, accountPercent: settings.ACCOUNT_REVENUE_PERCENT };
}

/** `percent` of `amount`, floored: a share never promises a cent more than the rule gives. */
export function share(amount: number, percent: number): number {
  return Math.floor((amount * percent) / 100);
}

/** What the distributor and its account earn per unit sold at `price`; both null without a price. */
export function distributionRevenues(
  price: Money | undefined,
  shares: RevenueShares,
): { distributor: Money | null; account: Money | null } {
  if (!price) return { distributor: null, account: null };
  const distributor = share(price.amount, shares.distributorPercent);
  return {
    distributor: { currency_code: price.currency_code, amount: distributor },
    account: { currency_code: price.currency_code, amount: share(distributor, shares.accountPercent) },
  };
}
