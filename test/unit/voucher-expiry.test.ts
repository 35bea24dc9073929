import {
  expiredAtPurchase,
  isVoucherExpired,
  voucherExpirationDate,
  vouchersExpireProblem,
  vouchersExpiryMs,
} from '../../domain/voucher-expiry';
import { saleRules } from '../../domain/sales';
import { Failure } from '../../domain/failures';

describe('voucher expiry: one rule for redeeming, selling and the offer itself', () => {
  it('gives a voucher its last day: a fixed date, a period after purchase, or none', () => {
    expect(voucherExpirationDate({ on: '2027-03-01' }, '2026-11-22')).toBe('2027-03-01');
    expect(voucherExpirationDate({ days_after_purchase: 10 }, '2026-12-25')).toBe('2027-01-04');
    expect(voucherExpirationDate(undefined, '2026-11-22')).toBeNull();
  });

  it('counts a voucher expired once its last day (UTC, inclusive) is over', () => {
    expect(isVoucherExpired('2026-02-01', '2026-02-01')).toBe(false);
    expect(isVoucherExpired('2026-02-01', '2026-02-02')).toBe(true);
    expect(isVoucherExpired(null, '2999-01-01')).toBe(false);
  });

  it('says a voucher bought today would already be expired only for a fixed date before today', () => {
    expect(expiredAtPurchase({ on: '2026-02-01' }, '2026-11-24')).toBe('2026-02-01');
    expect(expiredAtPurchase({ on: '2026-11-24' }, '2026-11-24')).toBeUndefined();
    expect(expiredAtPurchase({ days_after_purchase: 1 }, '2026-11-24')).toBeUndefined();
    expect(expiredAtPurchase(undefined, '2026-11-24')).toBeUndefined();
  });

  it('closes sales at the start of the UTC day after `on`', () => {
    expect(vouchersExpiryMs({ on: '2026-02-01' })).toBe(Date.parse('2026-02-02T00:00:00Z'));
    expect(vouchersExpiryMs({ days_after_purchase: 30 })).toBeNull();
    expect(vouchersExpiryMs(undefined)).toBeNull();
  });

  it('refuses a sale of such an offer with vouchers_expired, naming the field and the date', () => {
    const refuse = () =>
      saleRules.requireUnexpiredVouchers({ id: 'ofr_1', vouchers_expire: { on: '2026-02-01' } }, '2026-11-24', 'items[0].offer_id');
    expect(refuse).toThrow(Failure);
    try {
      refuse();
    } catch (err) {
      expect((err as Failure).details[0]).toMatchObject({
        code: 'vouchers_expired',
        field: 'items[0].offer_id',
        offer_id: 'ofr_1',
        vouchers_expire: { on: '2026-02-01' },
      });
    }
    expect(() =>
      saleRules.requireUnexpiredVouchers({ id: 'ofr_1', vouchers_expire: { on: '2026-11-24' } }, '2026-11-24', 'offer_id'),
    ).not.toThrow();
  });

  it('refuses an offer whose vouchers would be expired at its start, its activation, or today while it still sells', () => {
    const offer = { start_date: '2026-01-01', end_date: '2027-12-31' };
    const today = '2026-11-24';
    expect(vouchersExpireProblem({ ...offer, vouchers_expire: { on: '2025-12-31' } }, today)).toMatch(/start_date/);
    expect(
      vouchersExpireProblem({ ...offer, vouchers_activation_date: '2027-01-01', vouchers_expire: { on: '2026-12-31' } }, today),
    ).toMatch(/vouchers_activation_date/);
    // The case found by the hostile client: on sale to 2027, vouchers expired in February.
    expect(vouchersExpireProblem({ ...offer, vouchers_expire: { on: '2026-02-01' } }, today)).toMatch(/already be expired/);
    expect(vouchersExpireProblem({ ...offer, vouchers_expire: { on: today } }, today)).toBeUndefined();
    expect(vouchersExpireProblem({ ...offer, vouchers_expire: { days_after_purchase: 5 } }, today)).toBeUndefined();
    // An offer over already sells nothing: its past dates are history, not a sale of expired vouchers.
    expect(
      vouchersExpireProblem({ start_date: '2020-01-01', end_date: '2020-12-31', vouchers_expire: { on: '2021-06-30' } }, today),
    ).toBeUndefined();
  });
});
