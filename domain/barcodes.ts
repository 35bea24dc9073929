/*
 * What a voucher's barcode holds (docs/orders-and-vouchers.md, the voucher table): the one rule,
 * for every view of a code (the offer's supplied codes, the voucher once sold, the customer's page).
 */

/** A code the advertiser supplied: its own `barcode` if it sent one, else the code itself. */
export function suppliedBarcode(code: { redemption_code: string; barcode?: string | null }): string {
  return code.barcode ?? code.redemption_code;
}

/** A code the service generated (`XXXX-XXXX-XXXX`): the code without dashes, a shorter Code 128 payload. */
export function generatedBarcode(redemptionCode: string): string {
  return redemptionCode.replace(/-/g, '');
}
