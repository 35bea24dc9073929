import { scratchDatabase, seedLegacyOffers } from '../../setup/scratch-database';
import { migrateTo } from '../../../store/migrate';
import { redeemRequestOf } from '../../../domain/redemptions';

describe('the redemption-request migration records the body a keyed deal redemption can only have had (issue 34)', () => {
  const scratch = scratchDatabase('redemption_requests');

  it("gives a keyed deal or coupon redemption the body {voucher:{status:'redeemed'}}; a gift card's and an unkeyed one stay null", async () => {
    const db = scratch.open();
    try {
      await migrateTo(db, '2026_11_27_0041_offer_as_sold');
      await seedLegacyOffers(db, [['ofr_dl', 'deal', { price: { currency_code: 'USD', amount: 100 } }]]);
      await db
        .insertInto('orders')
        .values({ id: 'ord_1', client_id: 'cli_d', order_number: 'n1', workflow_id: 'wf1', customer_name: 'C', status: 'active' } as never) // the column's name before migration 0067
        .execute();
      const voucher = (id: string) => ({
        id,
        offer_id: 'ofr_dl',
        order_id: 'ord_1',
        client_id: 'cli_d',
        counts_stock: true,
        redemption_code: `CODE-${id}`,
        barcode: `CODE${id}`,
        customer_name: 'C',
        status: 'redeemed' as const,
        redeemed_at: new Date(),
      });
      await db
        .insertInto('vouchers')
        .values([voucher('vch_keyed'), voucher('vch_plain')])
        .execute();
      await db
        .insertInto('voucher_redemptions')
        .values([
          { id: 'rdm_keyed', voucher_id: 'vch_keyed', amount: null, currency_code: null, idempotency_key: 'till-1' },
          { id: 'rdm_plain', voucher_id: 'vch_plain', amount: null, currency_code: null, idempotency_key: null },
        ])
        .execute();

      expect(await migrateTo(db, '2026_11_27_0042_redemption_request')).toEqual(['2026_11_27_0042_redemption_request']);

      const rows = await db.selectFrom('voucher_redemptions').select(['id', 'request']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 'rdm_keyed', request: redeemRequestOf({ voucher: { status: 'redeemed' } }) },
        { id: 'rdm_plain', request: null },
      ]);
    } finally {
      await db.destroy();
    }
  });
});
