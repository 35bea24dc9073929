import { soldItemKey, soldItemOf } from '../../domain/event-feed';
import { soldView } from '../../schemas/callback-event';
import type { FoundOffer } from '../../store/distribution-search';

/**
 * Issue 34 finding 5: a voucher event shows a distributor the offer is no longer open to the offer
 * as the voucher's order sold it; everyone else sees the offer as it is now.
 */
describe('the offer a voucher event shows', () => {
  const exclusive = { document: { exclusivity: { exclusive: true, channels: ['cli_insider'] } } };
  const open = { document: {} };
  const asSold = { id: 'ofr_1', document: { title: 'As sold' } } as unknown as FoundOffer;
  const outsider = { interface: 'distribution' as const, client_id: 'cli_outsider' };
  const redeemed = { type: 'voucher.redeemed' };

  it('shows the offer as sold to a distributor the offer is no longer open to', () => {
    expect(soldView(redeemed, exclusive, outsider, asSold)).toBe(asSold);
    expect(soldView({ type: 'voucher.balance_voided' }, exclusive, outsider, asSold)).toBe(asSold);
  });

  it('shows the offer as it is now to one it is open to, to its advertiser, and for offer events', () => {
    expect(soldView(redeemed, open, outsider, asSold)).toBeUndefined();
    expect(soldView(redeemed, exclusive, { interface: 'distribution', client_id: 'cli_insider' }, asSold)).toBeUndefined();
    expect(soldView(redeemed, exclusive, { interface: 'submission', client_id: 'cli_adv' }, asSold)).toBeUndefined();
    expect(soldView({ type: 'offer.updated' }, exclusive, outsider, asSold)).toBeUndefined();
  });

  it('finds the order item of voucher events only', () => {
    const item = soldItemOf({ type: 'voucher.redeemed', offer_id: 'ofr_1', data: { order_id: 'ord_1' } });
    expect(item).toEqual({ order_id: 'ord_1', offer_id: 'ofr_1' });
    expect(soldItemKey(item!)).toBe('ord_1:ofr_1');
    expect(soldItemOf({ type: 'offer.updated', offer_id: 'ofr_1', data: { order_id: 'ord_1' } })).toBeUndefined();
    expect(soldItemOf({ type: 'voucher.redeemed', offer_id: 'ofr_1', data: {} })).toBeUndefined();
  });
});
