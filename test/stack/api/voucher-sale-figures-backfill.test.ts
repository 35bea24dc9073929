import { scratchDatabase, seedLegacyOffers } from '../../setup/scratch-database';
import { migrateTo } from '../../../store/migrate';

describe('the sale-figures migration backfills each voucher from its offer', () => {
  const scratch = scratchDatabase('sale_figures');

  it('copies the offer price and rebate, and leaves the revenues to the statement rule', async () => {
    const db = scratch.open();
    try {
      // The database as it stood before the figures were stored at sale.
      await migrateTo(db, '2026_11_25_0030_event_feed');
      await seedLegacyOffers(db, [
        [
          'ofr_dl',
          'deal',
          {
            price: { currency_code: 'USD', amount: 4500 },
            advertiser_rebate: { currency_code: 'USD', amount: 300 },
          },
        ],
        ['ofr_cp', 'coupon', {}],
      ]);
      await db
        .insertInto('orders')
        .values({ id: 'ord_1', client_id: 'cli_d', order_number: 'n1', workflow_id: 'wf1', customer_name: 'C', status: 'active' } as never) // the column's name before migration 0067
        .execute();
      const voucher = (id: string, offerId: string) => ({
        id,
        offer_id: offerId,
        order_id: 'ord_1',
        client_id: 'cli_d',
        counts_stock: true,
        redemption_code: `CODE-${id}`,
        barcode: `CODE${id}`,
        customer_name: 'C',
        status: 'acquired' as const,
      });
      await db
        .insertInto('vouchers')
        .values([voucher('vch_dl', 'ofr_dl'), voucher('vch_cp', 'ofr_cp')])
        .execute();

      expect(await migrateTo(db, '2026_11_25_0031_voucher_sale_figures')).toEqual(['2026_11_25_0031_voucher_sale_figures']);

      const rows = await db
        .selectFrom('vouchers')
        .select([
          'id',
          'sale_price_amount',
          'sale_price_currency',
          'sale_rebate_amount',
          'sale_rebate_currency',
          'sale_distributor_revenue',
          'sale_account_revenue',
        ])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        {
          id: 'vch_cp',
          sale_price_amount: null,
          sale_price_currency: null,
          sale_rebate_amount: null,
          sale_rebate_currency: null,
          sale_distributor_revenue: null,
          sale_account_revenue: null,
        },
        {
          id: 'vch_dl',
          sale_price_amount: 4500,
          sale_price_currency: 'USD',
          sale_rebate_amount: 300,
          sale_rebate_currency: 'USD',
          sale_distributor_revenue: null,
          sale_account_revenue: null,
        },
      ]);
    } finally {
      await db.destroy();
    }
  });
});
