import crypto from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ApiInterface, ServiceEnvironment } from '../domain/environment';
import { Failure, invalidField } from '../domain/failures';
import {
  findLiveClientBy,
  findRolledKeyByHash,
  insertApiClient,
  listApiClients,
  recordKeyUse,
  revokeApiClient,
  setReservationsEnabled,
} from '../store/api-clients';
import type { ApiClient, NewApiClient } from '../store/database';
import type { ServiceDeps } from './deps';

/** A client as the API sees it (request.client). */
export type { ApiClient };

/*
 * API keys and the clients that hold them: issued and revoked by operators (admin CLI), checked on
 * every request (api/plugins/auth.ts).
 */

/**
 * Keys carry their environment and interface in a readable prefix (as Stripe's `sk_test_` does),
 * so a misplaced key is recognisable in a log; the secret part is 32 random bytes.
 */
export function generateApiKey(environment: ServiceEnvironment, iface: ApiInterface): string {
  const env = environment === 'production' ? 'live' : 'test';
  const kind = iface === 'submission' ? 'sub' : 'dist';
  return `om_${env}_${kind}_${crypto.randomBytes(32).toString('base64url')}`;
}

/** Keys are high-entropy random strings, so a fast hash is enough to store them safely. */
export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new client's row and its key (not yet written): the key is random, the row holds its hash only. */
export function newApiClient(opts: { iface: ApiInterface; environment: ServiceEnvironment; name: string; reservations?: boolean }): {
  key: string;
  client: NewApiClient & { id: string };
} {
  const key = generateApiKey(opts.environment, opts.iface);
  const client = {
    id: `cli_${crypto.randomBytes(9).toString('base64url')}`,
    name: opts.name,
    interface: opts.iface,
    environment: opts.environment,
    key_hash: hashApiKey(key),
    key_prefix: key.slice(0, 16),
    reservations_enabled: opts.reservations ?? false,
    revoked_at: null,
  };
  return { key, client };
}

/** Creates an API client and returns its key, the only time the key is ever seen in clear. */
export async function createApiKey(
  deps: Pick<ServiceDeps, 'db'>,
  opts: { iface: ApiInterface; environment: ServiceEnvironment; name?: string; reservations?: boolean },
): Promise<{ key: string; clientId: string }> {
  if (opts.reservations && opts.iface !== 'distribution')
    throw invalidField('reservations', '--reservations applies to distribution keys only');
  const { key, client } = newApiClient({ ...opts, name: opts.name ?? `${opts.iface} client` });
  await insertApiClient(deps.db, client);
  return { key, clientId: client.id };
}

/** Why a request's key does not open this interface; the API answers each with its own status. */
export type KeyRefusal = 'unknown_key' | 'expired_key' | 'wrong_environment' | 'wrong_interface';

export type KeyCheck = { ok: true; client: ApiClient } | { ok: false; refusal: KeyRefusal; message: string };

/** A key found: its live client and, for a key rolled away, when it stops working. */
interface FoundKey {
  client: ApiClient;
  expiresAt?: Date;
}

/** The key's client as stored: the client's current key, or a key rolled away from it; its use recorded (to the minute). */
async function findKey(deps: Pick<ServiceDeps, 'db'>, hash: string): Promise<FoundKey | undefined> {
  const client = await findLiveClientBy(deps.db, { keyHash: hash });
  const rolled = client ? undefined : await findRolledKeyByHash(deps.db, hash);
  const found = client ? { client } : rolled && { client: rolled.client, expiresAt: rolled.key.expires_at };
  const lastUse = client ? client.key_last_used_at : rolled?.key.last_used_at;
  const stale = !lastUse || Date.now() - lastUse.getTime() > 60_000;
  if (found && stale && !(found.expiresAt && found.expiresAt <= new Date())) await recordKeyUse(deps.db, hash, !!rolled);
  return found;
}

/**
 * The client behind a request's key: it must be live (not revoked; a key rolled away not past its
 * expiry), of this deployment's environment, and issued for this interface.
 */
export async function checkApiKey(
  deps: Pick<ServiceDeps, 'db'>,
  key: string,
  expected: { iface: ApiInterface; environment: ServiceEnvironment },
  cache?: ApiKeyCache,
): Promise<KeyCheck> {
  const hash = hashApiKey(key);
  let found = cache?.get(hash);
  if (!found) {
    found = await findKey(deps, hash);
    if (found) cache?.set(hash, found);
  }
  const refused = (refusal: KeyRefusal, message: string): KeyCheck => ({ ok: false, refusal, message });
  if (!found) return refused('unknown_key', 'unknown or revoked API key');
  // Judged at each request, cached or not: a rolled-away key stops at its expiry to the second.
  if (found.expiresAt && found.expiresAt <= new Date())
    return refused('expired_key', `this API key was rolled and expired at ${found.expiresAt.toISOString()}; use the key that replaced it`);
  const { client } = found;
  if (client.environment !== expected.environment)
    return refused('wrong_environment', `this is a ${client.environment} key; this deployment serves ${expected.environment}`);
  if (client.interface !== expected.iface)
    return refused('wrong_interface', `this key is for the ${client.interface} interface, not ${expected.iface}`);
  return { ok: true, client };
}

/**
 * Live keys by hash, for `API_KEY_CACHE_SECONDS`: a key used again within that time costs no
 * query. A key revoked (by another process, the admin CLI) or rolled is still taken as it was
 * until its entry expires; a rolled key's own expiry is checked at every request. An unknown key
 * is never cached, so a new key works at once. Per-client settings that operators switch
 * (reservations) are read fresh where they matter, not from here.
 */
export type ApiKeyCache = LRUCache<string, FoundKey>;

/** The cache for one API process; undefined when `seconds` is 0 (every request reads the key). */
export function createApiKeyCache(seconds: number): ApiKeyCache | undefined {
  return seconds > 0 ? new LRUCache<string, FoundKey>({ max: 10_000, ttl: seconds * 1000 }) : undefined;
}

/** Whether an operator has turned reservations on for this client, read now (not from the key cache). */
export async function reservationsEnabled(deps: Pick<ServiceDeps, 'db'>, clientId: string): Promise<boolean> {
  return (await findLiveClientBy(deps.db, { id: clientId }))?.reservations_enabled ?? false;
}

/** The live client behind an API key or a client id (operators may give either), if any. */
export function findLiveClient(deps: Pick<ServiceDeps, 'db'>, keyOrId: string): Promise<ApiClient | undefined> {
  return findLiveClientBy(deps.db, { keyHash: hashApiKey(keyOrId), id: keyOrId });
}

/** Revokes a client and all its keys at once, named by a key of it (current or rolled away) or its client id. */
export async function revokeApiKey(deps: Pick<ServiceDeps, 'db'>, keyOrId: string): Promise<void> {
  const hash = hashApiKey(keyOrId);
  if (await revokeApiClient(deps.db, hash, keyOrId)) return;
  // A key rolled away names its client too: revoking it revokes the client, every key of it.
  const rolled = await findRolledKeyByHash(deps.db, hash);
  if (!rolled || !(await revokeApiClient(deps.db, hash, rolled.client.id))) throw new Failure('not_found', 'no live key matches');
}

/** The clients with their interface, environment, key prefix and state (revoked ones only when asked). */
export function listClients(deps: Pick<ServiceDeps, 'db'>, filter: { interface?: ApiInterface; includeRevoked: boolean }) {
  return listApiClients(deps.db, filter);
}

/** Turns reservations on or off for an existing distribution client; returns the new setting. */
export async function setReservations(deps: Pick<ServiceDeps, 'db'>, clientId: string, enabled: boolean) {
  const row = await setReservationsEnabled(deps.db, clientId, enabled);
  if (!row) throw new Failure('not_found', `no distribution client ${clientId}`);
  return { client_id: row.id, reservations_enabled: row.reservations_enabled };
}
