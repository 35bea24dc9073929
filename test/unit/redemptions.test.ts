import { giftCardBalance, giftCardValue, redeemRequestOf, redemptionRules, type RedemptionSubject } from '../../domain/redemptions';
import { Failure } from '../../domain/failures';

const USD = (amount: number) => ({ currency_code: 'USD', amount });
const NOW = new Date('2026-11-25T12:00:00Z');
const card = (over: Partial<RedemptionSubject> = {}): RedemptionSubject => ({
  status: 'acquired',
  expiration_date: null,
  balance: USD(5000),
  offer: { id: 'ofr_1', type: 'gift_card', document: {} },
  ...over,
});
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    if (err instanceof Failure) return err.details[0];
    throw err;
  }
  throw new Error('not refused');
};

describe('redemption rules (domain/redemptions.ts)', () => {
  const { decide, requireSameAsk, decideRollback, requireRollbackable } = redemptionRules;

  it('takes part of a gift card, or the whole balance, and is redeemed at zero', () => {
    expect(decide(card(), USD(1200), NOW)).toEqual({ amount: USD(1200), balanceAfter: 3800, status: 'acquired' });
    expect(decide(card(), undefined, NOW)).toEqual({ amount: USD(5000), balanceAfter: 0, status: 'redeemed' });
    expect(decide(card(), USD(5000), NOW).status).toBe('redeemed');
  });

  it('refuses more than the balance, another currency, an amount on a deal, and unredeemable vouchers', () => {
    expect(refusal(() => decide(card(), USD(5001), NOW))).toMatchObject({ code: 'insufficient_balance', balance: USD(5000) });
    expect(refusal(() => decide(card(), { currency_code: 'EUR', amount: 1 }, NOW))).toMatchObject({
      code: 'invalid_field',
      field: 'amount.currency_code',
    });
    const deal = card({ balance: null, offer: { id: 'ofr_1', type: 'deal', document: {} } });
    expect(refusal(() => decide(deal, USD(1), NOW))).toMatchObject({ code: 'invalid_field', field: 'amount' });
    expect(decide(deal, undefined, NOW)).toEqual({ amount: null, balanceAfter: null, status: 'redeemed' });
    expect(refusal(() => decide(card({ status: 'cancelled' }), undefined, NOW)).message).toBe('the voucher is already cancelled');
    expect(refusal(() => decide(card({ expiration_date: '2026-11-24' }), undefined, NOW)).message).toMatch(/expired on 2026-11-24/);
    expect(decide(card({ expiration_date: '2026-11-25' }), undefined, NOW).status).toBe('redeemed'); // its last day
    const later = card({ offer: { id: 'ofr_1', type: 'gift_card', document: { vouchers_activation_date: '2026-11-26' } } });
    expect(refusal(() => decide(later, undefined, NOW)).message).toMatch(/before 2026-11-26/);
  });

  it('redeems only on the weekdays restrictions.valid_days names (UTC), after the voucher itself is found redeemable', () => {
    // NOW is a Wednesday in UTC.
    const on = (valid_days: string[]) => card({ offer: { id: 'ofr_1', type: 'gift_card', document: { restrictions: { valid_days } } } });
    expect(decide(on(['wednesday']), undefined, NOW).status).toBe('redeemed');
    expect(refusal(() => decide(on(['monday', 'tuesday']), undefined, NOW))).toMatchObject({
      code: 'outside_valid_days',
      offer_id: 'ofr_1',
      weekday: 'wednesday',
    });
    expect(refusal(() => decide({ ...on(['monday']), status: 'redeemed' }, undefined, NOW)).message).toBe(
      'the voucher is already redeemed',
    );
  });

  it('rolls back once, within the window', () => {
    const r = { id: 'rdm_1', redeemed_at: new Date(NOW.getTime() - 24 * 3_600_000), rolled_back_at: null };
    expect(() => requireRollbackable(r, NOW, 24)).not.toThrow();
    expect(refusal(() => requireRollbackable(r, new Date(NOW.getTime() + 1), 24))).toMatchObject({ code: 'rollback_window_closed' });
    expect(refusal(() => requireRollbackable({ ...r, rolled_back_at: NOW }, NOW, 24))).toMatchObject({ code: 'already_rolled_back' });
  });

  it('refuses a rollback of no such redemption, of a cancelled voucher, and of a settled one on a cancelled order', () => {
    const r = { id: 'rdm_1', redeemed_at: new Date(NOW.getTime() - 3_600_000), rolled_back_at: null, amount: 500 };
    const live = { redemption: r, voucherStatus: 'redeemed' as const, orderStatus: 'placed' };
    expect(decideRollback(live, NOW, 24)).toBe(r);
    expect(refusal(() => decideRollback({ ...live, redemption: undefined }, NOW, 24))).toEqual({
      code: 'not_found',
      message: 'redemption not found',
    });
    expect(refusal(() => decideRollback({ ...live, voucherStatus: 'cancelled' }, NOW, 24))).toMatchObject({ code: 'conflict' });
    expect(refusal(() => decideRollback({ ...live, orderStatus: 'cancelled' }, NOW, 24))).toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/order is cancelled/),
    });
    // The redemption's own state is judged first: a rolled-back one says so, whatever became of its order.
    const twice = { ...live, redemption: { ...r, rolled_back_at: NOW }, orderStatus: 'cancelled' };
    expect(refusal(() => decideRollback(twice, NOW, 24))).toMatchObject({ code: 'already_rolled_back' });
  });

  it('answers a retry with the same Idempotency-Key only when it repeats the whole body (issue 34)', () => {
    const asked = { voucher: { status: 'redeemed', amount: USD(1200) } };
    const earlier = { id: 'rdm_1', amount: 1200, currency_code: 'USD', request: redeemRequestOf(asked) };
    const retry = (body: unknown) => requireSameAsk(earlier, { request: redeemRequestOf(body) });
    expect(() => retry(asked)).not.toThrow();
    // The same body, its keys in another order (or read from XML): the same request.
    expect(() => retry({ voucher: { amount: { amount: 1200, currency_code: 'USD' }, status: 'redeemed' } })).not.toThrow();
    // No amount is another request (the whole balance), even though the first took 1200.
    expect(refusal(() => retry({ voucher: { status: 'redeemed' } }))).toMatchObject({
      code: 'idempotency_key_reused',
      redemption_id: 'rdm_1',
    });
    expect(refusal(() => retry({ voucher: { status: 'redeemed', amount: USD(1300) } }))).toMatchObject({ code: 'idempotency_key_reused' });
    // And the other way: a first redemption without amount, retried with the amount it happened to take.
    const whole = { id: 'rdm_2', amount: 1200, currency_code: 'USD', request: redeemRequestOf({ voucher: { status: 'redeemed' } }) };
    expect(refusal(() => requireSameAsk(whole, { request: redeemRequestOf(asked) }))).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('compares by amount a redemption whose body was not recorded (a gift card redeemed before issue 34)', () => {
    const earlier = { id: 'rdm_1', amount: 1200, currency_code: 'USD', request: null };
    expect(() => requireSameAsk(earlier, { amount: USD(1200), request: 'x' })).not.toThrow();
    expect(() => requireSameAsk(earlier, { request: 'x' })).not.toThrow();
    expect(refusal(() => requireSameAsk(earlier, { amount: USD(1300) }))).toMatchObject({ code: 'idempotency_key_reused' });
    expect(refusal(() => requireSameAsk(earlier, { amount: { currency_code: 'EUR', amount: 1200 } }))).toMatchObject({
      code: 'idempotency_key_reused',
    });
  });

  it("reads a gift card's balance from its voucher, and none from a deal's", () => {
    expect(giftCardBalance({ value_currency: 'USD', balance_amount: 0 })).toEqual(USD(0));
    expect(giftCardBalance({ value_currency: null, balance_amount: null })).toBeNull();
  });

  it("fixes a gift card's face value from the offer's value, else its price", () => {
    expect(giftCardValue({ type: 'gift_card', document: { value: USD(100), price: USD(80) } })).toEqual(USD(100));
    expect(giftCardValue({ type: 'gift_card', document: { price: USD(80) } })).toEqual(USD(80));
    expect(giftCardValue({ type: 'gift_card', document: { price: USD(0) } })).toBeNull();
    expect(giftCardValue({ type: 'deal', document: { value: USD(100) } })).toBeNull();
  });
});
