import { rolledKeyState, ROLL_DEFAULT_SECONDS, ROLL_MAX_SECONDS, type ApiKeyState } from '../domain/api-key-rolling';
import { Failure, invalidField } from '../domain/failures';
import { findLiveClientBy, listRolledKeys, rollClientKey } from '../store/api-clients';
import type { ApiClient, RolledApiKeyRow } from '../store/database';
import { findLiveClient, generateApiKey, hashApiKey } from './api-clients';
import type { ServiceDeps } from './deps';

/*
 * Keys roll without downtime (docs/decisions/0073-api-key-rolling.md): the client gets a new key and
 * the old one keeps working until the expiry chosen at the roll (at most 7 days), then is refused
 * 401 `api_key_expired`. Operators roll with `admin keys roll`; a client rolls its own key with
 * `POST /api_keys/roll` on its interface. The new key is shown once, in that answer, and never stored.
 */

/** A key as lists show it: never the key, its prefix; when it was issued, when it stops, its last use (to the minute). */
export interface ApiKeyView {
  key_prefix: string;
  state: ApiKeyState;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
}

const currentView = (c: ApiClient): ApiKeyView => ({
  key_prefix: c.key_prefix,
  state: 'current',
  created_at: c.key_created_at,
  expires_at: null,
  last_used_at: c.key_last_used_at,
});

const rolledView = (k: RolledApiKeyRow, now: Date): ApiKeyView => ({
  key_prefix: k.key_prefix,
  state: rolledKeyState(k.expires_at, now),
  created_at: k.created_at,
  expires_at: k.expires_at,
  last_used_at: k.last_used_at,
});

/** The old key's expiry for a roll that keeps it `seconds` (default 24 h, at most 7 days; 0: at once). */
function expiryOf(seconds: number | undefined, now: Date): Date {
  const s = seconds ?? ROLL_DEFAULT_SECONDS;
  if (!Number.isInteger(s) || s < 0 || s > ROLL_MAX_SECONDS)
    throw invalidField(
      'expires_in_seconds',
      `expires_in_seconds: must be a whole number of seconds from 0 to ${ROLL_MAX_SECONDS} (7 days)`,
    );
  return new Date(now.getTime() + s * 1000);
}

/**
 * Rolls a client's current key. `presentedKey`: the key the request came with (a client rolling its
 * own): it must be the current key, so a key rolled away (perhaps the leaked one) cannot roll the
 * client on and take it over. Answers the new key (shown this once) and both keys' views.
 */
export async function rollApiKey(
  deps: Pick<ServiceDeps, 'db'>,
  a: { clientId: string; presentedKey?: string; expiresInSeconds?: number },
): Promise<{ key: string; api_key: ApiKeyView; rolled_key: ApiKeyView }> {
  const now = new Date();
  const expiresAt = expiryOf(a.expiresInSeconds, now);
  const client = await findLiveClientBy(deps.db, { id: a.clientId });
  if (!client) throw new Failure('not_found', `no live client ${a.clientId}`);
  if (client.demo) throw new Failure('forbidden', 'the shared demonstration key does not roll');
  const key = generateApiKey(client.environment, client.interface);
  const rolled = await rollClientKey(deps.db, {
    clientId: client.id,
    currentHash: a.presentedKey === undefined ? undefined : hashApiKey(a.presentedKey),
    newHash: hashApiKey(key),
    newPrefix: key.slice(0, 16),
    expiresAt,
  });
  if (!rolled)
    throw new Failure('forbidden', 'this key was rolled away already: roll with the current key that replaced it (or ask an operator)');
  return { key, api_key: currentView(rolled.current), rolled_key: rolledView(rolled.rolled, now) };
}

/** Rolls the key of the client named by one of its keys or its id (the admin CLI). */
export async function rollApiKeyOf(deps: Pick<ServiceDeps, 'db'>, keyOrId: string, expiresInSeconds?: number) {
  const client = await findLiveClient(deps, keyOrId);
  if (!client) throw new Failure('not_found', 'no live key matches');
  const { key, api_key, rolled_key } = await rollApiKey(deps, { clientId: client.id, expiresInSeconds });
  return { client_id: client.id, api_key: { ...api_key, key }, rolled_key };
}

/** A client's keys: the current one first, then those rolled away, newest first (expired ones too). */
export async function listApiKeys(deps: Pick<ServiceDeps, 'db'>, clientId: string): Promise<ApiKeyView[]> {
  const client = await findLiveClientBy(deps.db, { id: clientId });
  if (!client) throw new Failure('not_found', `no live client ${clientId}`);
  const now = new Date();
  return [currentView(client), ...(await listRolledKeys(deps.db, client.id)).map((k) => rolledView(k, now))];
}
