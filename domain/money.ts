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

/**
 * `percent` of `amount`, floored: a share never promises a cent more than the rule gives. Exact for
 * any percent the settings accept (33.3 too): the percent is read as the decimal it was written as
 * and the product is taken in BigInt, as the statement's SQL does in `numeric`, so the offer view
 * and a statement never differ by a cent.
 */
export function share(amount: number, percent: number): number {
  const [digits, scale] = decimalOf(percent);
  const num = BigInt(amount) * digits;
  const den = 100n * 10n ** BigInt(scale);
  // Floor, not truncation: amounts here are never negative, but the rule is "rounded down".
  const q = num / den;
  return Number(num % den !== 0n && num < 0n ? q - 1n : q);
}

/** A finite number as its shortest decimal: digits and how many of them follow the point (12.5 -> [125n, 1]). */
function decimalOf(n: number): [bigint, number] {
  if (!Number.isFinite(n)) throw new Error(`not a finite percent: ${n}`);
  const [mantissa, exp = '0'] = String(n).toLowerCase().split('e');
  const [int, frac = ''] = mantissa.split('.');
  const scale = frac.length - Number(exp);
  const digits = BigInt(int + frac);
  return scale >= 0 ? [digits, scale] : [digits * 10n ** BigInt(-scale), 0];
}

/**
 * A sum of amounts as the statements write it: integer minor units as a decimal string, `-` when
 * negative. A per-unit amount is capped (MAX_MONEY_AMOUNT, exact as a JSON number) but a sum over a
 * period is not, so sums are carried as BigInt and written as strings, never through a JS number.
 */
export type MinorUnits = string;

/** The decimal string of a BigInt amount. */
export const minorUnits = (amount: bigint): MinorUnits => amount.toString();

/** A decimal string of minor units (from SQL `numeric::text`) as a BigInt. */
export function parseMinorUnits(text: string): bigint {
  if (!/^-?(0|[1-9][0-9]*)$/.test(text)) throw new Error(`not a whole number of minor units: ${text}`);
  return BigInt(text);
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

/** How many minor units a currency has after the point (2 for USD, 0 for JPY, 3 for KWD), from Intl's own data. */
export function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * An amount in minor units as people read it, in its currency's own format (`$7.50`, `¥1,250`,
 * `KWD 1.250`): the one formatter of every page and of the messages that name money. A code Intl
 * does not know is written plainly rather than thrown.
 */
export function formatMoney(m: Money): string {
  try {
    const f = new Intl.NumberFormat('en-US', { style: 'currency', currency: m.currency_code });
    return f.format(m.amount / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${m.amount} ${m.currency_code} (minor units)`;
  }
}

/** Minor units as the decimal a form field holds (`750` USD → `7.50`). */
export const majorUnits = (amount: number, currency: string): string => {
  const digits = currencyDigits(currency);
  return (amount / 10 ** digits).toFixed(digits);
};
