import { voucherCancellation } from '../../domain/orders';
import { redemptionRules, spendableBalance } from '../../domain/redemptions';
import { Failure } from '../../domain/failures';

const USD = (amount: number) => ({ currency_code: 'USD', amount });

/** Issue 34 finding 2: cancelling an order cancels its vouchers, a partly spent gift card included. */
describe("an order's cancellation, voucher by voucher", () => {
  it('cancels acquired vouchers, voids partly spent gift cards, keeps redeemed and cancelled ones', () => {
    expect(voucherCancellation({ status: 'acquired', partlySpent: false })).toBe('cancel');
    expect(voucherCancellation({ status: 'acquired', partlySpent: true })).toBe('void');
    expect(voucherCancellation({ status: 'redeemed', partlySpent: true })).toBe('keep');
    expect(voucherCancellation({ status: 'redeemed', partlySpent: false })).toBe('keep');
    expect(voucherCancellation({ status: 'cancelled', partlySpent: false })).toBe('keep');
  });

  it('leaves a cancelled card nothing to spend, while its stored balance records what was voided', () => {
    expect(spendableBalance({ status: 'acquired', value_currency: 'USD', balance_amount: 7500 })).toEqual(USD(7500));
    expect(spendableBalance({ status: 'cancelled', value_currency: 'USD', balance_amount: 7500 })).toEqual(USD(0));
    expect(spendableBalance({ status: 'redeemed', value_currency: 'USD', balance_amount: 0 })).toEqual(USD(0));
    expect(spendableBalance({ status: 'cancelled', value_currency: null, balance_amount: null })).toBeNull();
  });

  it('refuses to redeem a voided card whatever its stored balance', () => {
    const voided = {
      status: 'cancelled' as const,
      expiration_date: null,
      balance: USD(7500),
      offer: { id: 'ofr_1', type: 'gift_card', document: {} },
    };
    expect(() => redemptionRules.decide(voided, USD(500), new Date('2026-11-25T12:00:00Z'))).toThrow(Failure);
  });
});
