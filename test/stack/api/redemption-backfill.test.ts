import { scratchDatabase, seedLegacyOffers } from '../../setup/scratch-database';
import { migrateTo } from '../../../store/migrate';

describe('the redemptions migration backfills balances and one redemption per redeemed voucher', () => {
  const scratch = scratchDatabase('redemptions');

  it('gift cards get their value (else their price) and a balance; redeemed vouchers a redemption at their redeemed_at', async () => {
    const db = scratch.open();
    try {
      // The database as it stood before gift-card balances.
      await migrateTo(db, '2026_11_24_0018_postal_codes');
      await seedLegacyOffers(db, [
        ['ofr_gc', 'gift_card', { price: { currency_code: 'EUR', amount: 4000 }, value: { currency_code: 'EUR', amount: 5000 } }],
        ['ofr_gp', 'gift_card', { price: { currency_code: 'USD', amount: 2500 } }],
        ['ofr_dl', 'deal', { price: { currency_code: 'USD', amount: 100 }, value: { currency_code: 'USD', amount: 200 } }],
      ]);
      await db
        .insertInto('orders')
        .values({ id: 'ord_1', client_id: 'cli_d', order_number: 'n1', workflow_id: 'wf1', customer_name: 'C', status: 'active' } as never) // the column's name before migration 0067
        .execute();
      const redeemedAt = new Date('2026-10-01T10:00:00Z');
      const voucher = (id: string, offerId: string, status: 'acquired' | 'redeemed' | 'cancelled') => ({
        id,
        offer_id: offerId,
        order_id: 'ord_1',
        client_id: 'cli_d',
        counts_stock: true,
        redemption_code: `CODE-${id}`,
        barcode: `CODE${id}`,
        customer_name: 'C',
        status,
        redeemed_at: status === 'redeemed' ? redeemedAt : null,
      });
      await db
        .insertInto('vouchers')
        .values([
          voucher('vch_gc_new', 'ofr_gc', 'acquired'),
          voucher('vch_gc_used', 'ofr_gc', 'redeemed'),
          voucher('vch_gp_used', 'ofr_gp', 'redeemed'),
          voucher('vch_dl_new', 'ofr_dl', 'acquired'),
          voucher('vch_dl_used', 'ofr_dl', 'redeemed'),
        ])
        .execute();

      expect(await migrateTo(db, '2026_11_24_0019_voucher_redemptions')).toEqual(['2026_11_24_0019_voucher_redemptions']);

      const vouchers = await db
        .selectFrom('vouchers')
        .select(['id', 'value_amount', 'value_currency', 'balance_amount'])
        .orderBy('id')
        .execute();
      expect(vouchers).toEqual([
        { id: 'vch_dl_new', value_amount: null, value_currency: null, balance_amount: null },
        { id: 'vch_dl_used', value_amount: null, value_currency: null, balance_amount: null },
        { id: 'vch_gc_new', value_amount: 5000, value_currency: 'EUR', balance_amount: 5000 },
        { id: 'vch_gc_used', value_amount: 5000, value_currency: 'EUR', balance_amount: 0 },
        { id: 'vch_gp_used', value_amount: 2500, value_currency: 'USD', balance_amount: 0 },
      ]);
      const redemptions = await db.selectFrom('voucher_redemptions').selectAll().orderBy('id').execute();
      expect(redemptions).toEqual([
        {
          id: 'rdm_vch_dl_used',
          voucher_id: 'vch_dl_used',
          amount: null,
          currency_code: null,
          redeemed_at: redeemedAt,
          rolled_back_at: null,
          idempotency_key: null,
        },
        {
          id: 'rdm_vch_gc_used',
          voucher_id: 'vch_gc_used',
          amount: 5000,
          currency_code: 'EUR',
          redeemed_at: redeemedAt,
          rolled_back_at: null,
          idempotency_key: null,
        },
        {
          id: 'rdm_vch_gp_used',
          voucher_id: 'vch_gp_used',
          amount: 2500,
          currency_code: 'USD',
          redeemed_at: redeemedAt,
          rolled_back_at: null,
          idempotency_key: null,
        },
      ]);
    } finally {
      await db.destroy();
    }
  });
});
