import crypto from 'node:crypto';
import { sql } from 'kysely';
import { resolveEndpoints } from '../../platform/endpoints';
import { createDb, type Db } from '../../store/db';
import { createHarness, type Harness } from './harness';

/*
 * An empty database of its own beside the suite's, for migration tests: they migrate it to a point,
 * write rows as older code did, then run the next migration. Dropped when the file's tests end.
 */
export function scratchDatabase(prefix: string): { open(): Db } {
  let h: Harness;
  const name = `${prefix}_${crypto.randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    h = await createHarness();
    await sql.raw(`create database ${name}`).execute(h.services.db);
  });
  afterAll(async () => {
    await sql.raw(`drop database if exists ${name}`).execute(h.services.db);
    await h.close();
  });
  return {
    /** A connection to it (the caller destroys it). */
    open() {
      const url = new URL(resolveEndpoints(h.config).databaseUrl);
      url.pathname = `/${name}`;
      return createDb(url.toString(), 2);
    },
  };
}
