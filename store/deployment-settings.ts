import type { Db } from './db';

/**
 * Facts and secrets recorded once per deployment (its environment, the demonstration key's
 * secret). Records `value` under `name` if nothing is recorded yet, and returns what is recorded (the
 * first writer wins, also between processes starting at once).
 */
export async function recordSetting(db: Db, name: string, value: string): Promise<{ value: string; recorded_at: Date }> {
  await db
    .insertInto('deployment_settings')
    .values({ name, value })
    .onConflict((c) => c.column('name').doNothing())
    .execute();
  return db.selectFrom('deployment_settings').select(['value', 'recorded_at']).where('name', '=', name).executeTakeFirstOrThrow();
}

/** The recorded value, or undefined when nothing is recorded yet. */
export async function readSetting(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('deployment_settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}
