import crypto from 'node:crypto';
import { scratchDatabase } from '../../setup/scratch-database';
import { migrateTo, migrateToLatest } from '../../../store/migrate';

/** The hash-of-(client, name) id offers carried before advertisers had their own table. */
const legacyId = (clientId: string, name: string) =>
  `adv_${crypto.createHash('sha256').update(`${clientId}\n${name.trim().toLowerCase()}`).digest('base64url').slice(0, 20)}`;

describe('the advertisers migration keeps the advertiser ids integrations already use', () => {
  const scratch = scratchDatabase('backfill');

  it('backfills one advertiser per existing id, named as its latest offer names it', async () => {
    const db = scratch.open();
    try {
      // A database as it stood before advertisers had their own table: every migration before 0012, in order.
      const before = await migrateTo(db, '2026_11_23_0011_nationwide_search_flag');
      expect(before).toHaveLength(11);
      await db
        .insertInto('api_clients')
        .values({ id: 'cli_a', name: 'Agent', interface: 'submission', environment: 'sandbox', key_hash: 'h', key_prefix: 'p' })
        .execute();
      const offer = (id: string, name: string, updated: string) => ({
        id,
        client_id: 'cli_a',
        advertiser_id: legacyId('cli_a', name),
        status: 'approved',
        type: 'deal',
        title: id,
        start_date: '2026-01-01',
        end_date: '2099-01-01',
        document: JSON.stringify({ advertiser: { name } }),
        updated_at: updated,
      });
      await db
        .insertInto('offers')
        .values([
          offer('ofr_1', 'Trattoria Roma', '2026-01-01T00:00:00Z'),
          offer('ofr_2', ' TRATTORIA ROMA ', '2026-02-01T00:00:00Z'),
          offer('ofr_3', 'Bakery', '2026-01-01T00:00:00Z'),
        ])
        .execute();
      expect(await migrateTo(db, '2026_11_23_0012_advertisers_supplied_vouchers')).toEqual([
        '2026_11_23_0012_advertisers_supplied_vouchers',
      ]);
      const advertisers = await db.selectFrom('advertisers').select(['id', 'client_id', 'name']).orderBy('name').execute();
      expect(advertisers).toEqual([
        { id: legacyId('cli_a', 'Bakery'), client_id: 'cli_a', name: 'Bakery' },
        { id: legacyId('cli_a', 'Trattoria Roma'), client_id: 'cli_a', name: 'TRATTORIA ROMA' },
      ]);
      // The migrations after it apply on top of the backfilled rows.
      expect((await migrateToLatest(db)).length).toBeGreaterThan(0);
    } finally {
      await db.destroy();
    }
  });
});
