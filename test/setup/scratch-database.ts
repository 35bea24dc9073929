import crypto from 'node:crypto';
import { sql } from 'kysely';
import { resolveEndpoints } from '../../platform/endpoints';
import { createDb, type Db } from '../../store/db';
import { createHarness, type Harness } from './harness';

/*
 * An empty database of its own beside the suite's, for migration tests: they migrate it to a point,
 * write rows as older code did, then run the next migration. Dropped when the file's tests end.
 */
export function scratchDatabase(prefix: string): { open(): Db; url(): string } {
  let h: Harness;
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    h = await createHarness();
    await sql.raw(`create database ${name}`).execute(h.services.db);
  });
  afterAll(async () => {
    // Forced: a file's own afterAll closing its connections runs after this one.
    await sql.raw(`drop database if exists ${name} with (force)`).execute(h.services.db);
    await h.close();
  });
  const url = () => {
    const u = new URL(resolveEndpoints(h.config).databaseUrl);
    u.pathname = `/${name}`;
    return u.toString();
  };
  return {
    /** A connection to it (the caller destroys it). */
    open: () => createDb(url(), 2),
    /** Its connection string (for a harness of its own: `env: { DATABASE_URL }`). */
    url,
  };
}

/**
 * The rows every backfill test starts from, written as the schema of any migration since
 * advertisers stood: a submission client `cli_s` with its advertiser `adv_1`, a distribution client
 * `cli_d`, and approved offers of `cli_s` (id, type, document), each its own title.
 */
export async function seedLegacyOffers(db: Db, offers: [id: string, type: string, document: object][]): Promise<void> {
  await db
    .insertInto('api_clients')
    .values([
      { id: 'cli_s', name: 'Agent', interface: 'submission', environment: 'sandbox', key_hash: 'h1', key_prefix: 'p1' },
      { id: 'cli_d', name: 'Platform', interface: 'distribution', environment: 'sandbox', key_hash: 'h2', key_prefix: 'p2' },
    ])
    .execute();
  await db.insertInto('advertisers').values({ id: 'adv_1', client_id: 'cli_s', name: 'Shop' }).execute();
  await db
    .insertInto('offers')
    .values(
      offers.map(([id, type, doc]) => ({
        id,
        client_id: 'cli_s',
        advertiser_id: 'adv_1',
        status: 'approved',
        type,
        title: id,
        start_date: '2026-01-01',
        end_date: '2099-01-01',
        document: JSON.stringify(doc),
      })),
    )
    .execute();
}
