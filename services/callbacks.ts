import type { ServiceEnvironment } from '../domain/environment';
import { Failure, invalidField } from '../domain/failures';
import { disableEndpoint, findEndpoint, setEndpoint, type EndpointShape } from '../store/callback-endpoints';
import { encryptedSecrets, resealSecrets, rotateSecret, type Resealed } from '../store/callback-secrets';
import { recentDeliveries, type DeliveryLane } from '../store/callback-deliveries';
import { replayEvent } from '../store/callback-fanout';
import type { ApiClient, CallbackEndpointRow } from '../store/database';
import { keyId, openSecret, SecretKeyError, storedForm } from '../platform/secret-box';
import { findOfferEvent } from '../store/offer-events';
import { wakeCallbackLane } from '../workflows/callback-delivery-messages';
import { revenueShares } from '../domain/money';
import { callbackBuilder, receivableEventTypes } from '../schemas/callback-event';
import { findLiveClient } from './api-clients';
import type { ServiceDeps } from './deps';

/*
 * Operators' side of clients' offer-change callbacks (docs/callbacks.md): set, show, disable,
 * rotate the secret, read the log, replay an event. The admin CLI calls these.
 */

/**
 * The URL check the worker's delivery activities apply too (platform/url-safety.ts),
 * handed in by the composition root (main/admin/context.ts): it resolves hosts, so it lives with
 * the HTTP client, not here.
 */
export interface CallbackUrlCheck {
  /** Why this deployment will not call `url` (form, and in production every resolved address), or null when it may. */
  refuseUrl(url: string, environment: ServiceEnvironment): Promise<string | null>;
}

type Deps = Pick<ServiceDeps, 'db' | 'config'>;

/** The live client behind an API key (or a client id), of this deployment's environment. */
export async function callbackClient(deps: Deps, keyOrId: string): Promise<ApiClient> {
  const client = await findLiveClient(deps, keyOrId);
  if (!client) throw new Failure('not_found', 'no live API key matches --key');
  if (client.environment !== deps.config.SERVICE_ENVIRONMENT) {
    throw new Failure(
      'forbidden',
      `this is a ${client.environment} key; this deployment serves ${deps.config.SERVICE_ENVIRONMENT}, whose callback URLs are set on its own deployment`,
    );
  }
  return client;
}

/** The client behind a key and its callback endpoint, which must exist. */
async function endpointOf(deps: Deps, keyOrId: string): Promise<{ client: ApiClient; endpoint: CallbackEndpointRow }> {
  const client = await callbackClient(deps, keyOrId);
  const endpoint = await findEndpoint(deps.db, client.id);
  if (!endpoint) throw new Failure('not_found', `client ${client.id} has no callback URL; set one with: callbacks set --key … --url …`);
  return { client, endpoint };
}

/** The most attempts a second an endpoint may ask for (spacing 10 ms); also the column's check (migration 0044). */
export const MAX_PER_SECOND_CAP = 100;
const DESCRIPTION_MAX = 500;

/**
 * An endpoint's shape, checked against what its client can receive (docs/callbacks.md "Endpoint
 * settings"): each event type one its interface receives (`receivableEventTypes`), no repeats;
 * max_per_second a whole number from 1 to the cap (null: no limit); a description of at most 500
 * characters (empty: none). Fields left undefined stay as they are.
 */
export function checkEndpointShape(iface: ApiClient['interface'], s: EndpointShape): EndpointShape {
  const known = receivableEventTypes(iface);
  const unknown = (s.eventTypes ?? []).filter((t) => !known.includes(t));
  if (unknown.length)
    throw invalidField(
      'event_types',
      `event_types: unknown for a ${iface} client: ${unknown.join(', ')}; it can receive ${known.join(', ')}`,
    );
  const m = s.maxPerSecond;
  if (m !== undefined && m !== null && !(Number.isInteger(m) && m >= 1 && m <= MAX_PER_SECOND_CAP))
    throw invalidField('max_per_second', `max_per_second: must be a whole number from 1 to ${MAX_PER_SECOND_CAP} (none: no limit)`);
  if (s.description && s.description.length > DESCRIPTION_MAX)
    throw invalidField('description', `description: must be at most ${DESCRIPTION_MAX} characters`);
  return {
    ...(s.eventTypes !== undefined && { eventTypes: [...new Set(s.eventTypes)] }),
    ...(m !== undefined && { maxPerSecond: m }),
    ...(s.description !== undefined && { description: s.description || null }),
  };
}

/**
 * Sets (or changes, re-enabling) a client's callback URL and the endpoint's shape once the URL
 * passes this deployment's check. A new endpoint's signing secret is returned, once; an existing
 * endpoint keeps its own (null).
 */
export async function setCallbackUrl(
  deps: Deps & CallbackUrlCheck,
  s: { keyOrId: string; url: string; format: 'json' | 'xml'; shape?: EndpointShape },
): Promise<{ client: ApiClient; endpoint: CallbackEndpointRow; secret: string | null }> {
  const client = await callbackClient(deps, s.keyOrId);
  const shape = checkEndpointShape(client.interface, s.shape ?? {});
  const refused = await deps.refuseUrl(s.url, deps.config.SERVICE_ENVIRONMENT);
  if (refused !== null) throw invalidField('url', `refused: ${refused}`);
  const { endpoint, secret } = await setEndpoint(deps.db, {
    clientId: client.id,
    url: s.url,
    format: s.format,
    secretKeys: deps.config.CALLBACK_SECRET_KEY,
    shape,
  });
  return { client, endpoint, secret };
}

/** A client's callback endpoint as operators see it: URL, format, shape (description, event types, rate), status (disabled with its reason), failures, secret rotation. */
export async function showCallbackEndpoint(deps: Deps, keyOrId: string) {
  const { client, endpoint: e } = await endpointOf(deps, keyOrId);
  const rotating = e.previous_secret_expires_at && new Date(e.previous_secret_expires_at) > new Date();
  return {
    client_id: client.id,
    interface: client.interface,
    url: e.url,
    format: e.format,
    description: e.description,
    event_types: e.event_types,
    max_per_second: e.max_per_second,
    status: e.status,
    disabled_reason: e.disabled_reason,
    disabled_at: e.disabled_at,
    consecutive_failures: e.consecutive_failures,
    failing_since: e.failing_since,
    last_success_at: e.last_success_at,
    previous_secret_valid_until: rotating ? e.previous_secret_expires_at : null,
    created_at: e.created_at,
  };
}

/** Stops a client's callbacks; its pending deliveries are cancelled (`setCallbackUrl` re-enables). */
export async function disableCallbacks(deps: Deps, keyOrId: string, reason: string): Promise<void> {
  const { endpoint } = await endpointOf(deps, keyOrId);
  await disableEndpoint(deps.db, endpoint.id, reason);
}

/** A new signing secret; the old one keeps signing too for CALLBACK_SECRET_OVERLAP_SECONDS. */
export async function rotateCallbackSecret(deps: Deps, keyOrId: string): Promise<{ secret: string; previousValidUntil: Date }> {
  const { endpoint } = await endpointOf(deps, keyOrId);
  return rotateSecret(deps.db, endpoint.id, deps.config.CALLBACK_SECRET_OVERLAP_SECONDS, deps.config.CALLBACK_SECRET_KEY);
}

/**
 * At start-up: every encrypted secret must open with a key of CALLBACK_SECRET_KEY, so a missing or
 * wrong key stops the start instead of failing deliveries one by one. The SecretKeyError says
 * which key ids are missing and for how many secrets. One AES-GCM open per secret: microseconds each.
 */
export async function checkCallbackSecretKey(deps: Deps): Promise<void> {
  const keys = deps.config.CALLBACK_SECRET_KEY;
  const unreadable = new Map<string, number>(); // why → how many secrets
  let missingKeys = false;
  for (const sealed of await encryptedSecrets(deps.db)) {
    try {
      openSecret(sealed, keys);
    } catch (err) {
      if (!(err instanceof SecretKeyError)) throw err;
      const f = storedForm(sealed);
      const missing = !keys?.length || f.form === 'v1' || (f.form === 'v2' && !keys.some((k) => keyId(k) === f.keyId));
      missingKeys ||= missing;
      const why = !missing
        ? err.message // damaged, altered or an unknown format: in its own words
        : f.form === 'v2'
          ? `encrypted with key id ${f.keyId}`
          : 'encrypted with an unknown key (enc:v1 values have no key id)';
      unreadable.set(why, (unreadable.get(why) ?? 0) + 1);
    }
  }
  if (!unreadable.size) return;
  const total = [...unreadable.values()].reduce((a, b) => a + b, 0);
  const list = [...unreadable].map(([why, n]) => `${why} (${n})`).join('; ');
  const held = keys?.length
    ? `CALLBACK_SECRET_KEY holds key ids ${keys.map((k, i) => keyId(k) + (i === 0 ? ' (current)' : '')).join(', ')}.`
    : 'CALLBACK_SECRET_KEY is not set.';
  const advice = !missingKeys
    ? ''
    : keys?.length
      ? ' Put the missing key back in the list, after the current one, until `callbacks reencrypt` has rewritten them under the current key (docs/security.md).'
      : ' Set it to the key(s) they were encrypted with (docs/security.md).';
  throw new SecretKeyError(`${total} stored callback signing secret(s) cannot be opened: ${list}. ${held}${advice}`);
}

/** The configured keys, for a command that encrypts: the first one writes. */
function keysToWrite(deps: Deps): readonly string[] {
  const keys = deps.config.CALLBACK_SECRET_KEY;
  if (!keys?.length) throw new Failure('conflict', 'CALLBACK_SECRET_KEY is not set: there is no key to encrypt with');
  return keys;
}

/** Encrypts under the current key every signing secret still stored in clear; how many endpoints changed. */
export async function encryptCallbackSecrets(deps: Deps): Promise<number> {
  const keys = keysToWrite(deps);
  await checkCallbackSecretKey(deps); // every stored secret must stay readable
  return (await resealSecrets(deps.db, keys, 'clear')).endpoints;
}

/**
 * Key rotation's last step before the old key goes (docs/security.md): rewrites under the current
 * (first) key of CALLBACK_SECRET_KEY every stored secret, current and previous, that is in clear,
 * `enc:v1:`, or under another key; in batches of `batchSize` endpoints, each one transaction.
 * Refuses first, naming the key ids, when some secret opens with none of the configured keys.
 */
export async function reencryptCallbackSecrets(deps: Deps, batchSize = 100): Promise<Resealed & { key_id: string }> {
  const keys = keysToWrite(deps);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    throw invalidField('batch_size', 'must be a whole number from 1 to 10000');
  await checkCallbackSecretKey(deps);
  return { key_id: keyId(keys[0]), ...(await resealSecrets(deps.db, keys, 'not-current', batchSize)) };
}

/** A client's recent deliveries, newest first (between 1 and 500 of them; 20 when `limit` is not a number). */
export async function callbackLog(deps: Deps, keyOrId: string, limit: number) {
  const { endpoint } = await endpointOf(deps, keyOrId);
  return recentDeliveries(deps.db, endpoint.id, Math.min(Math.max(limit || 20, 1), 500));
}

/**
 * Records new deliveries of one event (same event id), to every endpoint it went to, or only to
 * the client's given by `keyOrId`. Returns them and the lanes to wake (`wakeCallbackLanes`).
 */
export async function replayCallbackEvent(
  deps: Deps,
  eventId: string,
  keyOrId?: string,
): Promise<{ deliveries: string[]; lanes: DeliveryLane[] }> {
  const endpointId = keyOrId ? (await endpointOf(deps, keyOrId)).endpoint.id : undefined;
  if (!(await findOfferEvent(deps.db, eventId))) throw new Failure('not_found', `no event ${eventId}`);
  const replayed = await replayEvent(deps.db, eventId, callbackBuilder(revenueShares(deps.config)), endpointId);
  if (!replayed.deliveries.length) {
    throw new Failure(
      'not_found',
      `event ${eventId} has no enabled endpoint to go to${keyOrId ? ' for this client' : ''} (or none whose event_types take its type)`,
    );
  }
  return replayed;
}

/** Starts (or wakes) the delivery workflow of each lane, through its contract. Idempotent. */
export async function wakeCallbackLanes(deps: Pick<ServiceDeps, 'temporal' | 'config'>, lanes: DeliveryLane[]): Promise<void> {
  const opts = { taskQueue: deps.config.TEMPORAL_TASK_QUEUE, attemptTimeoutSeconds: deps.config.CALLBACK_TIMEOUT_SECONDS };
  for (const lane of lanes) await wakeCallbackLane(deps.temporal.workflow, opts, lane);
}
