import { scratchDatabase, seedLegacyOffers } from '../../setup/scratch-database';
import { migrateTo } from '../../../store/migrate';
import { customerKey } from '../../../domain/customer-identity';

describe('the customer-key migration refolds the keys of customers known by name (issue 34)', () => {
  const scratch = scratchDatabase('customer_keys');

  it('gives each voucher keyed by name the key placing computes now; keys by reference stay', async () => {
    const db = scratch.open();
    try {
      // The database as it stood with keys trimmed and lower-cased only.
      await migrateTo(db, '2026_11_27_0042_redemption_request');
      await seedLegacyOffers(db, [['ofr_1', 'deal', { price: { currency_code: 'USD', amount: 100 } }]]);
      await db
        .insertInto('orders')
        .values({ id: 'ord_1', client_id: 'cli_d', order_number: 'n1', workflow_id: 'wf1', customer_name: 'C', status: 'active' } as never) // the column's name before migration 0067
        .execute();
      const voucher = (id: string, customerName: string, key: string | null) => ({
        id,
        offer_id: 'ofr_1',
        order_id: 'ord_1',
        client_id: 'cli_d',
        counts_stock: true,
        redemption_code: `CODE-${id}`,
        barcode: `CODE${id}`,
        customer_name: customerName,
        customer_key: key,
        status: 'acquired' as const,
      });
      await db
        .insertInto('vouchers')
        .values([
          voucher('vch_plain', 'Ada Lovelace', 'name:ada lovelace'),
          voucher('vch_zw', 'Ada\u200b Lovelace', 'name:ada\u200b lovelace'),
          voucher('vch_spaces', 'Ada  Lovelace', 'name:ada  lovelace'),
          voucher('vch_cyrillic', '\u0410da Lovelace', 'name:\u0430da lovelace'),
          voucher('vch_ref', 'Ada\u200b Lovelace', 'ref:cust-1'),
          voucher('vch_old', 'Ada  Lovelace', null),
        ])
        .execute();

      expect(await migrateTo(db, '2026_11_27_0043_customer_key_fold')).toEqual(['2026_11_27_0043_customer_key_fold']);

      const keys = Object.fromEntries(
        (await db.selectFrom('vouchers').select(['id', 'customer_key']).execute()).map((v) => [v.id, v.customer_key]),
      );
      const ada = customerKey(undefined, 'Ada Lovelace');
      expect(keys).toEqual({
        vch_plain: ada,
        vch_zw: ada,
        vch_spaces: ada,
        vch_cyrillic: ada,
        vch_ref: 'ref:cust-1',
        vch_old: null,
      });
    } finally {
      await db.destroy();
    }
  });
});
