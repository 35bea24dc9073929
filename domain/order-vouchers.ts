import type { PlaceOrderInput } from './orders';
import { distributionRevenues, type Money, type RevenueShares } from './money';
import { giftCardValue } from './redemptions';
import { generatedBarcode, suppliedBarcode } from './barcodes';
import { voucherExpirationDate, vouchersExpireOf } from './voucher-expiry';
import type { AvailableCode, OfferForSale, PlanTools } from './order-state';
import type { TakenUnits } from './order-stock';

/*
 * The vouchers a placed order issues (domain/order-plan.ts): one per unit, drawn from the
 * reservation its unit came from, with an advertiser-supplied code (oldest first) or a generated
 * one, and the figures fixed at the sale.
 */

export interface NewVoucherRow {
  id: string;
  offer_id: string;
  order_id: string;
  client_id: string;
  account_id: string | null;
  reservation_id: string | null;
  counts_stock: boolean;
  redemption_code: string;
  barcode: string;
  supplied: boolean;
  customer_name: string;
  customer_key: string;
  expiration_date: string | null;
  /** A gift card's face value, fixed when sold, and what is left of it; null for deals and coupons. */
  value_amount: number | null;
  value_currency: string | null;
  balance_amount: number | null;
  sale_price_amount: number | null;
  sale_price_currency: string | null;
  sale_rebate_amount: number | null;
  sale_rebate_currency: string | null;
  sale_distributor_revenue: number | null;
  sale_account_revenue: number | null;
}

/** Item i's units: `taken[i]` says how many came from which reservation, `codes[i]` the supplied codes (empty: generated). */
export function voucherRows(
  o: PlaceOrderInput,
  offers: OfferForSale[],
  taken: TakenUnits[],
  codes: (readonly AvailableCode[])[],
  c: { today: string; customer: string; tools: PlanTools },
): NewVoucherRow[] {
  return o.items.flatMap((it, i) => {
    const offer = offers[i];
    // A gift card's value is fixed when it is sold: a later edit of the offer does not change it.
    const value = giftCardValue(offer);
    // So are the sale's per-unit figures the statements count (docs/statements.md).
    const figures = saleFigures(offer.document, c.tools.shares);
    const expiration_date = voucherExpirationDate(vouchersExpireOf(offer.document), c.today);
    return Array.from({ length: it.quantity }, (_, unit): NewVoucherRow => {
      const supplied = codes[i][unit] as AvailableCode | undefined;
      const code = supplied?.redemption_code ?? c.tools.newCode();
      return {
        id: supplied?.id ?? c.tools.derivedId('vch', `${o.orderKey}:voucher:${i}:${unit}`),
        offer_id: it.offer_id,
        order_id: o.orderId,
        client_id: o.clientId,
        account_id: o.accountId,
        reservation_id: unit < taken[i].fromReservation ? taken[i].reservationId : null,
        counts_stock: offer.quantity_in_stock !== null,
        redemption_code: code,
        barcode: supplied ? suppliedBarcode(supplied) : generatedBarcode(code),
        supplied: !!supplied,
        customer_name: o.customerName,
        customer_key: c.customer,
        expiration_date,
        value_amount: value?.amount ?? null,
        value_currency: value?.currency_code ?? null,
        balance_amount: value?.amount ?? null,
        ...figures,
      };
    });
  });
}

/** The per-unit figures a voucher of this offer keeps from its sale: price, rebate, and the revenues the distribution view shows. */
function saleFigures(document: unknown, shares: RevenueShares) {
  const doc = document as { price?: Money; advertiser_rebate?: Money };
  const revenues = distributionRevenues(doc.price, shares);
  return {
    sale_price_amount: doc.price?.amount ?? null,
    sale_price_currency: doc.price?.currency_code ?? null,
    sale_rebate_amount: doc.advertiser_rebate?.amount ?? null,
    sale_rebate_currency: doc.advertiser_rebate?.currency_code ?? null,
    sale_distributor_revenue: revenues.distributor?.amount ?? null,
    sale_account_revenue: revenues.account?.amount ?? null,
  };
}
