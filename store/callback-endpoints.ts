import type { CallbackEndpointRow } from './database';
import { sql } from 'kysely';
import type { Db, Trx } from './db';
import { newId } from './ids';
import { cancelPendingDeliveries } from './callback-deliveries';
import { newSigningSecret } from './callback-secrets';
import { sealSecret, type SecretKeys } from '../platform/secret-box';
import type { FailureStreak } from '../domain/callback-failures';

/*
 * Clients' callback endpoints (callback_endpoints): one per client, with its URL, format, shape
 * (event types, pacing, description), state and failure streak. The admin CLI's services and the
 * callback activities share these; the signing secrets are store/callback-secrets.ts's.
 */

/** Whose endpoint it is and which interface that client uses: who may hear of which offer, in which words. */
export interface EndpointAudience {
  client_id: string;
  interface: 'submission' | 'distribution';
}

/** A client's callback endpoint, if it has one. */
export async function findEndpoint(db: Db, clientId: string): Promise<CallbackEndpointRow | undefined> {
  return db.selectFrom('callback_endpoints').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

/** What an integrator shapes on an endpoint (docs/callbacks.md "Endpoint settings"); undefined: unchanged (new: all, no limit, none). */
export interface EndpointShape {
  eventTypes?: string[];
  maxPerSecond?: number | null;
  description?: string | null;
}

/** The shape's given fields as columns. */
const shapeColumns = (s: EndpointShape) => ({
  ...(s.eventTypes !== undefined && { event_types: s.eventTypes }),
  ...(s.maxPerSecond !== undefined && { max_per_second: s.maxPerSecond }),
  ...(s.description !== undefined && { description: s.description }),
});

/**
 * Sets a client's URL, format and shape, enabling the endpoint. A new endpoint gets a new secret (returned
 * once; stored encrypted under the current key of `secretKeys`, CALLBACK_SECRET_KEY, when set); an existing one
 * keeps its secret, so receivers keep verifying, and its history.
 */
export async function setEndpoint(
  db: Db,
  e: { clientId: string; url: string; format: 'json' | 'xml'; secretKeys: SecretKeys; shape?: EndpointShape },
): Promise<{ endpoint: CallbackEndpointRow; secret: string | null }> {
  const existing = await findEndpoint(db, e.clientId);
  if (existing) {
    const endpoint = await db
      .updateTable('callback_endpoints')
      .set({
        url: e.url,
        format: e.format,
        ...shapeColumns(e.shape ?? {}),
        status: 'enabled',
        disabled_reason: null,
        disabled_at: null,
        consecutive_failures: 0,
        failing_since: null,
        updated_at: new Date(),
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { endpoint, secret: null };
  }
  const secret = newSigningSecret();
  const endpoint = await db
    .insertInto('callback_endpoints')
    .values({
      id: newId('cbe'),
      client_id: e.clientId,
      url: e.url,
      format: e.format,
      secret: sealSecret(secret, e.secretKeys),
      ...shapeColumns(e.shape ?? {}),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { endpoint, secret };
}

/** Stops deliveries to an endpoint: it is disabled and its pending deliveries cancelled. Returns the endpoint as it is now. */
export async function disableEndpoint(db: Db | Trx, endpointId: string, reason: string): Promise<CallbackEndpointRow> {
  const now = new Date();
  const endpoint = await db
    .updateTable('callback_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, disabled_at: now, updated_at: now })
    .where('id', '=', endpointId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await cancelPendingDeliveries(db, endpointId, reason);
  return endpoint;
}

/**
 * The next pacing slot of an endpoint sending at most `perSecond` attempts a second: the end of
 * the last slot handed out, or now if that is past; the next one starts 1/perSecond later. By the
 * database's clock, so every worker paces against the same one. Returns how many ms from now the
 * slot starts (0 when it starts now).
 */
export async function reserveEndpointSlot(trx: Trx, endpointId: string, perSecond: number): Promise<{ slot: Date; inMs: number }> {
  const spacing = sql`make_interval(secs => 1.0 / ${perSecond})`;
  const row = await trx
    .updateTable('callback_endpoints')
    .set({ paced_until: sql<Date>`greatest(paced_until, clock_timestamp()) + ${spacing}` })
    .where('id', '=', endpointId)
    .returning([
      sql<Date>`paced_until - ${spacing}`.as('slot'),
      sql<string>`greatest(0, extract(epoch from (paced_until - ${spacing} - clock_timestamp())) * 1000)`.as('in_ms'),
    ])
    .executeTakeFirstOrThrow();
  return { slot: row.slot, inMs: Math.ceil(Number(row.in_ms)) };
}

/** The endpoints that receive callbacks now: enabled, of a client whose key is not revoked. */
export function enabledEndpoints(db: Db | Trx) {
  return db
    .selectFrom('callback_endpoints as e')
    .innerJoin('api_clients as c', 'c.id', 'e.client_id')
    .select(['e.id', 'e.client_id', 'e.created_at', 'e.event_types', 'e.max_per_second', 'c.interface'])
    .where('e.status', '=', 'enabled')
    .where('c.revoked_at', 'is', null);
}

/** An attempt succeeded: the endpoint's failure streak ends. */
export async function recordEndpointSuccess(trx: Trx, endpointId: string, at: Date): Promise<void> {
  await trx
    .updateTable('callback_endpoints')
    .set({ consecutive_failures: 0, failing_since: null, last_success_at: at })
    .where('id', '=', endpointId)
    .execute();
}

/** An attempt failed: the endpoint's streak grows (starting at `startedAt` if new); returns its client and the streak. */
export async function recordEndpointFailure(
  trx: Trx,
  endpointId: string,
  a: { startedAt: Date; error: string | null },
): Promise<{ clientId: string; streak: FailureStreak }> {
  const ep = await trx
    .updateTable('callback_endpoints')
    .set((eb) => ({
      consecutive_failures: eb('consecutive_failures', '+', 1),
      failing_since: eb.fn.coalesce('failing_since', eb.val(a.startedAt)),
    }))
    .where('id', '=', endpointId)
    .returning(['client_id', 'consecutive_failures', 'failing_since'])
    .executeTakeFirstOrThrow();
  // failing_since is never null here: the update above sets it when it was.
  return { clientId: ep.client_id, streak: { since: new Date(ep.failing_since!), count: ep.consecutive_failures, lastError: a.error } };
}
