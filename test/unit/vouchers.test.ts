import { newRedemptionCode } from '../../store/vouchers';
import { voucherExpirationDate, vouchersExpireOf } from '../../domain/voucher-expiry';
import type { OfferForSale } from '../../domain/order-state';
import { unsellableReason } from '../../domain/offer-lifecycle';

describe('voucher codes and expiry', () => {
  it('makes unguessable codes in an unambiguous alphabet', () => {
    const codes = Array.from({ length: 5000 }, newRedemptionCode);
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of codes.slice(0, 100)) expect(c).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
  });

  it('expires on a fixed date, N days after purchase, or never', () => {
    const expirationDate = (doc: unknown, purchasedOn: string) => voucherExpirationDate(vouchersExpireOf(doc), purchasedOn);
    expect(expirationDate({ vouchers_expire: { on: '2027-03-01' } }, '2026-11-22')).toBe('2027-03-01');
    expect(expirationDate({ vouchers_expire: { days_after_purchase: 10 } }, '2026-12-25')).toBe('2027-01-04');
    expect(expirationDate({}, '2026-11-22')).toBeNull();
  });
});

describe('what may be sold', () => {
  const offer = (o: Partial<OfferForSale>): OfferForSale => ({
    id: 'ofr_1',
    status: 'approved',
    type: 'deal',
    start_date: '2026-01-01',
    end_date: '2026-12-31',
    quantity_in_stock: 5,
    reserved_quantity: 0,
    sells_supplied_codes: false,
    event_sequence: 0,
    document: {},
    ...o,
  });
  it('only approved or resumed offers inside their dates', () => {
    expect(unsellableReason(offer({}), '2026-06-01')).toBeUndefined();
    expect(unsellableReason(offer({ status: 'resumed' }), '2026-12-31')).toBeUndefined();
    for (const status of ['pending', 'suspended', 'withdrawn', 'cancelled', 'closed', 'rejected'])
      expect(unsellableReason(offer({ status }), '2026-06-01')).toBeDefined();
    expect(unsellableReason(offer({}), '2025-12-31')).toMatch(/before/);
    expect(unsellableReason(offer({}), '2027-01-01')).toMatch(/ended/);
    expect(unsellableReason(undefined, '2026-06-01')).toBeDefined();
  });
});
