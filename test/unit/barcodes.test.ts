import { generatedBarcode, suppliedBarcode } from '../../domain/barcodes';
import { toSuppliedVoucher } from '../../schemas/offer-view';
import type { SuppliedVoucherState } from '../../store/supplied-vouchers';

describe('one barcode rule for a voucher code', () => {
  const state = (barcode: string | null): SuppliedVoucherState => ({
    id: 'vch_1',
    offer_id: 'ofr_1',
    redemption_code: 'AUDIT-001',
    barcode,
    status: 'available',
    redeemed_at: null,
    cancelled_at: null,
  });

  it("a supplied code is the advertiser's barcode, else the code itself", () => {
    expect(suppliedBarcode({ redemption_code: 'AUDIT-001' })).toBe('AUDIT-001');
    expect(suppliedBarcode({ redemption_code: 'AUDIT-001', barcode: null })).toBe('AUDIT-001');
    expect(suppliedBarcode({ redemption_code: 'AUDIT-001', barcode: '4006381333931' })).toBe('4006381333931');
  });

  it("the offer's list of supplied codes shows that barcode, never null (as the voucher sold from it does)", () => {
    expect(toSuppliedVoucher(state(null)).barcode).toBe('AUDIT-001');
    expect(toSuppliedVoucher(state('4006381333931')).barcode).toBe('4006381333931');
  });

  it('a generated code is its code without dashes', () => {
    expect(generatedBarcode('7K3M-Q9XZ-2ABC-DEFG')).toBe('7K3MQ9XZ2ABCDEFG');
  });
});
