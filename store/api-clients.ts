import { sql } from 'kysely';
import type { ApiClient, NewApiClient, RolledApiKeyRow } from './database';
import type { Db } from './db';

/*
 * The API clients (key holders): one row per client, holding its current key's SHA-256 only, and
 * the keys rolled away from it (rolled_api_keys) until and after their expiry. A key itself is
 * shown once, when issued, and never stored.
 */

/**
 * The live (not revoked) client whose key hashes to `keyHash`, or whose id is `id` (operators may
 * name a client either way; the API's key check gives the hash, a client's own requests the id).
 */
export function findLiveClientBy(db: Db, by: { keyHash?: string; id?: string }): Promise<ApiClient | undefined> {
  return db
    .selectFrom('api_clients')
    .selectAll()
    .where((eb) => eb.or([...(by.keyHash ? [eb('key_hash', '=', by.keyHash)] : []), ...(by.id ? [eb('id', '=', by.id)] : [])]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Writes the shared demonstration client, or brings it back as given (live, same key hash) when it
 * exists: printing the demo key is idempotent.
 */
export async function upsertDemoClient(db: Db, client: NewApiClient): Promise<void> {
  await db
    .insertInto('api_clients')
    .values({ ...client, demo: true })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ key_hash: client.key_hash, key_prefix: client.key_prefix, revoked_at: null, demo: true }),
    )
    .execute();
}

/** Writes the client unless one with its id exists (a fixed, well-known client such as the demo advertisers). */
export async function insertApiClientOnce(db: Db, client: NewApiClient): Promise<void> {
  await db
    .insertInto('api_clients')
    .values(client)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Writes a new client. */
export async function insertApiClient(db: Db, client: NewApiClient): Promise<void> {
  await db.insertInto('api_clients').values(client).execute();
}

/** Revokes the live client with this id or key hash at once; false when none matches. */
export async function revokeApiClient(db: Db, keyHash: string, id: string): Promise<boolean> {
  const res = await db
    .updateTable('api_clients')
    .set({ revoked_at: new Date() })
    .where((eb) => eb.or([eb('id', '=', id), eb('key_hash', '=', keyHash)]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The clients as operators list them, oldest first: never a key, only its prefix. */
export function listApiClients(db: Db, filter: { interface?: 'submission' | 'distribution'; includeRevoked: boolean }) {
  let q = db
    .selectFrom('api_clients')
    .select(['id', 'name', 'interface', 'environment', 'key_prefix', 'reservations_enabled', 'created_at', 'revoked_at'])
    .orderBy('created_at');
  if (filter.interface) q = q.where('interface', '=', filter.interface);
  if (!filter.includeRevoked) q = q.where('revoked_at', 'is', null);
  return q.execute();
}

/** Turns reservations on or off for a distribution client; undefined when there is no such client. */
export function setReservationsEnabled(db: Db, clientId: string, enabled: boolean) {
  return db
    .updateTable('api_clients')
    .set({ reservations_enabled: enabled })
    .where('id', '=', clientId)
    .where('interface', '=', 'distribution')
    .returning(['id', 'reservations_enabled'])
    .executeTakeFirst();
}

/** Those of these ids that name no distribution client (an offer's exclusivity channels must name them). */
export async function unknownDistributionClientIds(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await db
    .selectFrom('api_clients')
    .select('id')
    .where('id', 'in', [...new Set(ids)])
    .where('interface', '=', 'distribution')
    .execute();
  const known = new Set(found.map((r) => r.id));
  return ids.filter((id) => !known.has(id));
}

/** A key rolled away (rolled_api_keys) with its live client: it works until `expires_at`. Undefined when unknown or the client is revoked. */
export async function findRolledKeyByHash(db: Db, keyHash: string): Promise<{ client: ApiClient; key: RolledApiKeyRow } | undefined> {
  const key = await db.selectFrom('rolled_api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  if (!key) return undefined;
  const client = await db
    .selectFrom('api_clients')
    .selectAll()
    .where('id', '=', key.client_id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return client && { client, key };
}

/** Records a key's use (its client's current key, or a rolled one) unless one was recorded within the last minute. */
export async function recordKeyUse(db: Db, keyHash: string, rolled: boolean): Promise<void> {
  const [table, column] = rolled ? ['rolled_api_keys', 'last_used_at'] : ['api_clients', 'key_last_used_at'];
  const used = sql.ref(column);
  await sql`update ${sql.table(table)} set ${used} = now()
    where key_hash = ${keyHash} and (${used} is null or ${used} < now() - interval '1 minute')`.execute(db);
}

/**
 * Rolls a live client's current key, which must be `currentHash` (a key rolled away never rolls
 * again): it moves to rolled_api_keys with its expiry, and the new key takes its place, in one
 * transaction under the client's row lock. Undefined when `currentHash` is not that client's current key.
 */
export function rollClientKey(
  db: Db,
  a: { clientId: string; currentHash?: string; newHash: string; newPrefix: string; expiresAt: Date },
): Promise<{ current: ApiClient; rolled: RolledApiKeyRow } | undefined> {
  return db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom('api_clients')
      .selectAll()
      .where('id', '=', a.clientId)
      .where('revoked_at', 'is', null)
      .where('demo', '=', false);
    if (a.currentHash) q = q.where('key_hash', '=', a.currentHash);
    const old = await q.forUpdate().executeTakeFirst();
    if (!old) return undefined;
    const rolled = await trx
      .insertInto('rolled_api_keys')
      .values({
        key_hash: old.key_hash,
        client_id: old.id,
        key_prefix: old.key_prefix,
        created_at: old.key_created_at,
        expires_at: a.expiresAt,
        last_used_at: old.key_last_used_at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const current = await trx
      .updateTable('api_clients')
      .set({ key_hash: a.newHash, key_prefix: a.newPrefix, key_created_at: sql`now()`, key_last_used_at: null })
      .where('id', '=', old.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { current, rolled };
  });
}

/** A client's keys rolled away, newest first (expired ones too: they are refused as expired). */
export function listRolledKeys(db: Db, clientId: string): Promise<RolledApiKeyRow[]> {
  return db.selectFrom('rolled_api_keys').selectAll().where('client_id', '=', clientId).orderBy('rolled_at', 'desc').execute();
}
