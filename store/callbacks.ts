import { sql } from 'kysely';
import type { CallbackEndpointRow, OfferEventRow, OfferRow } from './database';
import type { Db } from './db';
import type { RevenueShares } from '../domain/money';
import { callbackPayload, distributionEventType, submissionEventType } from '../activities/callbacks/events';
import { newSigningSecret } from '../activities/callbacks/signing';
import { derivedId, newId } from './ids';
import type { Trx } from './db';

/*
 * Callback endpoints and deliveries in Postgres: the admin CLI and the callback activities share
 * these. The outbox (offer_events) is the source of truth; a delivery row exists for every
 * (event, endpoint) that must be sent, before any workflow is woken to send it.
 */

/** A (endpoint, offer) pair: one delivery workflow sends that offer's events to that endpoint, in order. */
export interface DeliveryLane {
  endpointId: string;
  offerId: string;
}

export async function findEndpoint(db: Db, clientId: string): Promise<CallbackEndpointRow | undefined> {
  return db.selectFrom('callback_endpoints').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

/**
 * Sets a client's URL and format, enabling the endpoint. A new endpoint gets a new secret (returned
 * once); an existing one keeps its secret, so receivers keep verifying, and its history.
 */
export async function setEndpoint(
  db: Db,
  e: { clientId: string; url: string; format: 'json' | 'xml' },
): Promise<{ endpoint: CallbackEndpointRow; secret: string | null }> {
  const existing = await findEndpoint(db, e.clientId);
  if (existing) {
    const endpoint = await db
      .updateTable('callback_endpoints')
      .set({
        url: e.url,
        format: e.format,
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
    .values({ id: newId('cbe'), client_id: e.clientId, url: e.url, format: e.format, secret })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { endpoint, secret };
}

/** Stops deliveries to an endpoint: it is disabled and its pending deliveries cancelled. */
export async function disableEndpoint(db: Db | Trx, endpointId: string, reason: string): Promise<void> {
  const now = new Date();
  await db
    .updateTable('callback_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, disabled_at: now, updated_at: now })
    .where('id', '=', endpointId)
    .execute();
  await cancelPendingDeliveries(db, endpointId, reason);
}

/** Cancels an endpoint's pending deliveries (it is disabled: nothing more goes out). */
export async function cancelPendingDeliveries(db: Db | Trx, endpointId: string, reason: string): Promise<void> {
  const now = new Date();
  await db
    .updateTable('callback_deliveries')
    .set({ status: 'cancelled', last_error: `endpoint disabled: ${reason}`, next_attempt_at: null, updated_at: now })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

/** A new signing secret; the old one keeps signing too until `overlapSeconds` from now. */
export async function rotateSecret(
  db: Db,
  endpointId: string,
  overlapSeconds: number,
): Promise<{ secret: string; previousValidUntil: Date }> {
  const secret = newSigningSecret();
  const previousValidUntil = new Date(Date.now() + overlapSeconds * 1000);
  await db
    .updateTable('callback_endpoints')
    .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_expires_at: previousValidUntil, secret, updated_at: new Date() }))
    .where('id', '=', endpointId)
    .execute();
  return { secret, previousValidUntil };
}

/** The secrets that sign right now: the current one, and the previous one inside its overlap window. */
export function signingSecrets(
  e: Pick<CallbackEndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  now = new Date(),
): string[] {
  const prev = e.previous_secret && e.previous_secret_expires_at && new Date(e.previous_secret_expires_at) > now ? [e.previous_secret] : [];
  return [e.secret, ...prev];
}

export async function recentDeliveries(db: Db, endpointId: string, limit: number) {
  return db
    .selectFrom('callback_deliveries')
    .select([
      'id',
      'event_id',
      'type',
      'offer_id',
      'sequence',
      'status',
      'attempts',
      'last_status_code',
      'last_error',
      'next_attempt_at',
      'delivered_at',
      'replay',
      'created_at',
    ])
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at', 'desc')
    .orderBy('sequence', 'desc')
    .limit(limit)
    .execute();
}

type Endpoint = Pick<CallbackEndpointRow, 'id' | 'client_id' | 'created_at'> & { interface: 'submission' | 'distribution' };

/** Who receives one event, under which type, with which body; the offer's row is read at dispatch time. */
function deliveriesFor(event: OfferEventRow, offer: OfferRow, endpoints: Endpoint[], shares: RevenueShares, replay = false) {
  const rows = [];
  for (const ep of endpoints) {
    // An endpoint hears about changes made after it was set, not the history before it.
    if (!replay && new Date(ep.created_at) > new Date(event.created_at)) continue;
    const type =
      ep.interface === 'submission'
        ? ep.client_id === offer.client_id
          ? submissionEventType(event)
          : null
        : distributionEventType(event, offer);
    if (!type) continue;
    rows.push({
      id: replay ? newId('dlv') : derivedId('dlv', `${ep.id}:${event.id}`),
      endpoint_id: ep.id,
      event_id: event.id,
      offer_id: event.offer_id,
      sequence: event.sequence,
      type,
      payload: JSON.stringify(callbackPayload(event, type, offer, ep.interface, shares)),
      replay,
    });
  }
  return rows;
}

function enabledEndpoints(db: Db | Trx) {
  return db
    .selectFrom('callback_endpoints as e')
    .innerJoin('api_clients as c', 'c.id', 'e.client_id')
    .select(['e.id', 'e.client_id', 'e.created_at', 'c.interface'])
    .where('e.status', '=', 'enabled')
    .where('c.revoked_at', 'is', null);
}

/**
 * Turns up to `limit` undispatched outbox events into delivery rows and marks them dispatched, in
 * one transaction (SKIP LOCKED, so concurrent dispatchers never take the same event). Returns the
 * lanes to wake. A crash before the wake-up loses nothing: `staleLanes` finds those rows again.
 */
export async function dispatchEvents(db: Db, limit: number, shares: RevenueShares): Promise<{ events: number; lanes: DeliveryLane[] }> {
  return db.transaction().execute(async (trx) => {
    const events = await trx
      .selectFrom('offer_events')
      .selectAll()
      .where('dispatched_at', 'is', null)
      .orderBy('created_at')
      .orderBy('sequence')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (!events.length) return { events: 0, lanes: [] };
    const offerIds = [...new Set(events.map((e) => e.offer_id))];
    const offers = new Map((await trx.selectFrom('offers').selectAll().where('id', 'in', offerIds).execute()).map((o) => [o.id, o]));
    const clientIds = [...new Set([...offers.values()].map((o) => o.client_id))];
    const endpoints = await enabledEndpoints(trx)
      .where((eb) =>
        eb.or([eb('c.interface', '=', 'distribution'), eb.and([eb('c.interface', '=', 'submission'), eb('e.client_id', 'in', clientIds)])]),
      )
      .execute();
    const rows = events.flatMap((ev) =>
      offers.has(ev.offer_id) && endpoints.length ? deliveriesFor(ev, offers.get(ev.offer_id)!, endpoints, shares) : [],
    );
    if (rows.length)
      await trx
        .insertInto('callback_deliveries')
        .values(rows)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    await trx
      .updateTable('offer_events')
      .set({ dispatched_at: new Date() })
      .where(
        'id',
        'in',
        events.map((e) => e.id),
      )
      .execute();
    return { events: events.length, lanes: uniqueLanes(rows.map((r) => ({ endpointId: r.endpoint_id, offerId: r.offer_id }))) };
  });
}

/** New deliveries of one event (same event id, so receivers that kept it can drop it), to one endpoint or to all it went to before. */
export async function replayEvent(
  db: Db,
  eventId: string,
  shares: RevenueShares,
  endpointId?: string,
): Promise<{ deliveries: string[]; lanes: DeliveryLane[] }> {
  const event = await db.selectFrom('offer_events').selectAll().where('id', '=', eventId).executeTakeFirst();
  if (!event) return { deliveries: [], lanes: [] };
  const offer = await db.selectFrom('offers').selectAll().where('id', '=', event.offer_id).executeTakeFirstOrThrow();
  let q = enabledEndpoints(db);
  if (endpointId) q = q.where('e.id', '=', endpointId);
  else q = q.where('e.id', 'in', db.selectFrom('callback_deliveries').select('endpoint_id').where('event_id', '=', eventId));
  const rows = deliveriesFor(event, offer, await q.execute(), shares, true);
  if (rows.length) await db.insertInto('callback_deliveries').values(rows).execute();
  return { deliveries: rows.map((r) => r.id), lanes: uniqueLanes(rows.map((r) => ({ endpointId: r.endpoint_id, offerId: r.offer_id }))) };
}

/**
 * Lanes whose first pending delivery should be under way but apparently is not (its retry time or
 * creation is over `graceSeconds` old and no sibling is waiting for a retry): their workflow's
 * wake-up was lost (a crash between commit and signal) or the workflow ended. Waking is idempotent.
 */
export async function staleLanes(db: Db, graceSeconds: number, limit = 100): Promise<DeliveryLane[]> {
  const rows = await db
    .selectFrom('callback_deliveries as d')
    .select(['d.endpoint_id', 'd.offer_id'])
    .distinct()
    .where('d.status', '=', 'pending')
    .where(sql<boolean>`coalesce(d.next_attempt_at, d.created_at) < now() - make_interval(secs => ${graceSeconds})`)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('callback_deliveries as s')
            .select('s.id')
            .whereRef('s.endpoint_id', '=', 'd.endpoint_id')
            .whereRef('s.offer_id', '=', 'd.offer_id')
            .where('s.status', '=', 'pending')
            .where('s.next_attempt_at', '>', sql<Date>`now() - make_interval(secs => ${graceSeconds})`),
        ),
      ),
    )
    .limit(limit)
    .execute();
  return rows.map((r) => ({ endpointId: r.endpoint_id, offerId: r.offer_id }));
}

/** The lane's next delivery: lowest sequence first (replays of an old event go to its place in line). */
export async function nextPendingDelivery(db: Db, lane: DeliveryLane) {
  return db
    .selectFrom('callback_deliveries')
    .select(['id', 'next_attempt_at'])
    .where('endpoint_id', '=', lane.endpointId)
    .where('offer_id', '=', lane.offerId)
    .where('status', '=', 'pending')
    .orderBy('sequence')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
}

function uniqueLanes(lanes: DeliveryLane[]): DeliveryLane[] {
  const seen = new Map(lanes.map((l) => [`${l.endpointId} ${l.offerId}`, l]));
  return [...seen.values()];
}
