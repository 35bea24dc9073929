import { sql } from 'kysely';
import type { Db } from './db';

/** The cheapest round trip to Postgres: resolves when the database answers. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
