import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { CallbackEndpointRow, OfferEventRow, OfferRow } from './database';
import type { Db, Trx } from './db';
import { derivedId, newId } from './ids';
import { findOfferEvent, markEventsDispatched, takeUndispatchedEvents } from './offer-events';
import { findOffersByIds } from './offers';
import { currentPrefix, isSealed, isUnderCurrentKey, openSecret, sealSecret, storedForm, type SecretKeys } from '../platform/secret-box';

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

/** Whose endpoint it is and which interface that client uses: who may hear of which offer, in which words. */
export interface EndpointAudience {
  client_id: string;
  interface: 'submission' | 'distribution';
}

/**
 * What one endpoint receives for one event: its callback type and body, or null when it need not
 * hear of it. Built by the callback activities (activities/callbacks/events.ts) and passed in, so
 * the delivery rows are written in the dispatcher's own transaction.
 */
export type CallbackFor = (event: OfferEventRow, offer: OfferRow, endpoint: EndpointAudience) => { type: string; payload: unknown } | null;

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

/** A client's callback endpoint, if it has one. */
export async function findEndpoint(db: Db, clientId: string): Promise<CallbackEndpointRow | undefined> {
  return db.selectFrom('callback_endpoints').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

/**
 * Sets a client's URL and format, enabling the endpoint. A new endpoint gets a new secret (returned
 * once; stored encrypted under the current key of `secretKeys`, CALLBACK_SECRET_KEY, when set); an existing one
 * keeps its secret, so receivers keep verifying, and its history.
 */
export async function setEndpoint(
  db: Db,
  e: { clientId: string; url: string; format: 'json' | 'xml'; secretKeys: SecretKeys },
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
    .values({ id: newId('cbe'), client_id: e.clientId, url: e.url, format: e.format, secret: sealSecret(secret, e.secretKeys) })
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

/**
 * A new signing secret (stored encrypted under the current key of `secretKeys` when set); the old one keeps
 * signing too until `overlapSeconds` from now. The old one moves as stored, clear or encrypted.
 */
export async function rotateSecret(
  db: Db,
  endpointId: string,
  overlapSeconds: number,
  secretKeys: SecretKeys,
): Promise<{ secret: string; previousValidUntil: Date }> {
  const secret = newSigningSecret();
  const previousValidUntil = new Date(Date.now() + overlapSeconds * 1000);
  await db
    .updateTable('callback_endpoints')
    .set((eb) => ({
      previous_secret: eb.ref('secret'),
      previous_secret_expires_at: previousValidUntil,
      secret: sealSecret(secret, secretKeys),
      updated_at: new Date(),
    }))
    .where('id', '=', endpointId)
    .execute();
  return { secret, previousValidUntil };
}

/**
 * The secrets that sign right now, in clear: the current one, and the previous one inside its
 * overlap window. An encrypted one that no key of `secretKeys` opens throws (SecretKeyError): a
 * callback is never sent unsigned or signed with a wrong secret.
 */
export function signingSecrets(
  e: Pick<CallbackEndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  secretKeys: SecretKeys,
  now = new Date(),
): string[] {
  const prev = e.previous_secret && e.previous_secret_expires_at && new Date(e.previous_secret_expires_at) > now ? [e.previous_secret] : [];
  return [e.secret, ...prev].map((s) => openSecret(s, secretKeys));
}

/** Every encrypted stored secret (current and previous), to check at start-up that the configured key opens each. */
export async function encryptedSecrets(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('callback_endpoints')
    .select(['secret', 'previous_secret'])
    .where((eb) => eb.or([eb('secret', 'like', 'enc:%'), eb('previous_secret', 'like', 'enc:%')]))
    .execute();
  return rows.flatMap((r) => [r.secret, r.previous_secret ?? '']).filter(isSealed);
}

/** What `resealSecrets` rewrote: endpoints and stored values, the values counted by what they were before. */
export interface Resealed {
  endpoints: number;
  secrets: number;
  /** Per former form: `clear`, `v1`, or `v2:<key id>`. */
  from: Record<string, number>;
}

/**
 * Rewrites stored secrets (current and previous) under the current key of `secretKeys`: with
 * `which: 'clear'` only those stored in clear; with `'not-current'` every one not already
 * `enc:v2:` under the current key (clear, v1, or another key's). In batches of `batchSize`
 * endpoints, each batch one transaction whose rows are locked (FOR UPDATE) from reading to
 * writing, so a concurrent `rotateSecret` or a second run waits for the batch and then sees its
 * result. A value no configured key opens throws (SecretKeyError) and rolls back its batch. Rows
 * already done no longer match, so running it again (or after a failure) only does what is left.
 */
export async function resealSecrets(
  db: Db,
  secretKeys: readonly string[],
  which: 'clear' | 'not-current',
  batchSize = 100,
): Promise<Resealed> {
  const prefix = currentPrefix(secretKeys)!;
  const needs = (stored: string) => (which === 'clear' ? !isSealed(stored) : !isUnderCurrentKey(stored, secretKeys));
  // The same test in SQL (left(), not LIKE: base64url's "_" is a LIKE wildcard).
  const sqlNeeds = (column: 'secret' | 'previous_secret') =>
    which === 'clear'
      ? sql<boolean>`left(${sql.ref(column)}, 4) <> 'enc:'`
      : sql<boolean>`left(${sql.ref(column)}, ${prefix.length}) <> ${prefix}`;
  const done: Resealed = { endpoints: 0, secrets: 0, from: {} };
  const reseal = (stored: string) => {
    const f = storedForm(stored);
    const from = f.form === 'v2' ? `v2:${f.keyId}` : f.form;
    done.from[from] = (done.from[from] ?? 0) + 1;
    done.secrets += 1;
    return sealSecret(openSecret(stored, secretKeys), secretKeys);
  };
  for (;;) {
    const before = done.secrets;
    const changed = await db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('callback_endpoints')
        .select(['id', 'secret', 'previous_secret'])
        // A NULL previous_secret makes its test NULL, not true: only the other column decides.
        .where((eb) => eb.or([sqlNeeds('secret'), sqlNeeds('previous_secret')]))
        .orderBy('id')
        .limit(batchSize)
        .forUpdate()
        .execute();
      for (const r of rows) {
        await trx
          .updateTable('callback_endpoints')
          .set({
            secret: needs(r.secret) ? reseal(r.secret) : r.secret,
            previous_secret: r.previous_secret !== null && needs(r.previous_secret) ? reseal(r.previous_secret) : r.previous_secret,
          })
          .where('id', '=', r.id)
          .execute();
      }
      return rows.length;
    });
    // Every row taken had something to rewrite; should the SQL and the code above ever disagree,
    // stop rather than take the same rows forever.
    if (changed > 0 && done.secrets === before) throw new Error('resealSecrets: rows selected with nothing to rewrite');
    done.endpoints += changed;
    if (changed > 0) continue;
    // None returned: either nothing is left, or every remaining row was locked by a concurrent run
    // and rewritten by it while this one waited (it then drops out of the result). Stop only when
    // nothing is left, so a run that ends has seen the whole table done.
    const left = await db
      .selectFrom('callback_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where((eb) => eb.or([sqlNeeds('secret'), sqlNeeds('previous_secret')]))
      .executeTakeFirstOrThrow();
    if (Number(left.n) === 0) return done;
  }
}

/** An endpoint's latest deliveries, newest first, as `callbacks log` shows them. */
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

type Endpoint = Pick<CallbackEndpointRow, 'id' | 'client_id' | 'created_at'> & EndpointAudience;

/** Who receives one event, under which type, with which body; the offer's row is read at dispatch time. */
function deliveriesFor(event: OfferEventRow, offer: OfferRow, endpoints: Endpoint[], callbackFor: CallbackFor, replay = false) {
  const rows = [];
  for (const ep of endpoints) {
    // An endpoint hears about changes made after it was set, not the history before it.
    if (!replay && new Date(ep.created_at) > new Date(event.created_at)) continue;
    const callback = callbackFor(event, offer, ep);
    if (!callback) continue;
    rows.push({
      id: replay ? newId('dlv') : derivedId('dlv', `${ep.id}:${event.id}`),
      endpoint_id: ep.id,
      event_id: event.id,
      offer_id: event.offer_id,
      sequence: event.sequence,
      type: callback.type,
      payload: JSON.stringify(callback.payload),
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

/** A delivery the dispatcher attempts itself, leased to it (see dispatchEvents). */
export interface LeasedDelivery {
  deliveryId: string;
  lane: DeliveryLane;
}

/** What one dispatch did: events taken, lanes whose workflow must be woken now, deliveries leased to the caller. */
export interface Dispatched {
  events: number;
  lanes: DeliveryLane[];
  leased: LeasedDelivery[];
}

/**
 * Turns up to `limit` undispatched outbox events into delivery rows and marks them dispatched, in
 * one transaction (SKIP LOCKED, so concurrent dispatchers never take the same event). A crash
 * before the wake-up loses nothing: `staleLanes` finds those rows again.
 *
 * Fan-out fast path: in a lane with nothing pending before this batch, the batch's first delivery
 * is leased to the caller for `lease.seconds` (at most `lease.slots` of them), who attempts it at
 * once without waking the lane's workflow; the lane's workflow leaves a leased head alone, so the
 * lane's order holds. Every other delivery's lane is returned to be woken now, unless the lane's
 * head is leased (the caller wakes it after its attempt).
 */
export async function dispatchEvents(
  db: Db,
  limit: number,
  callbackFor: CallbackFor,
  lease: { slots: number; seconds: number } = { slots: 0, seconds: 0 },
): Promise<Dispatched> {
  return db.transaction().execute(async (trx) => {
    const events = await takeUndispatchedEvents(trx, limit);
    if (!events.length) return { events: 0, lanes: [], leased: [] };
    const offerIds = [...new Set(events.map((e) => e.offer_id))];
    const offers = new Map((await findOffersByIds(trx, offerIds)).map((o) => [o.id, o]));
    const clientIds = [...new Set([...offers.values()].map((o) => o.client_id))];
    const endpoints = await enabledEndpoints(trx)
      .where((eb) =>
        eb.or([eb('c.interface', '=', 'distribution'), eb.and([eb('c.interface', '=', 'submission'), eb('e.client_id', 'in', clientIds)])]),
      )
      .execute();
    const rows: (ReturnType<typeof deliveriesFor>[number] & { leased_until?: Date })[] = events.flatMap((ev) =>
      offers.has(ev.offer_id) && endpoints.length ? deliveriesFor(ev, offers.get(ev.offer_id)!, endpoints, callbackFor) : [],
    );
    const leased: LeasedDelivery[] = [];
    if (rows.length && lease.slots > 0) {
      const busy = new Set((await pendingLanes(trx, offerIds)).map(laneKey));
      const until = new Date(Date.now() + lease.seconds * 1000);
      // Events come oldest first, so a lane's first row here is its lowest sequence.
      for (const r of rows) {
        if (leased.length >= lease.slots) break;
        const key = laneKey({ endpointId: r.endpoint_id, offerId: r.offer_id });
        if (busy.has(key)) continue;
        busy.add(key);
        r.leased_until = until;
        leased.push({ deliveryId: r.id, lane: { endpointId: r.endpoint_id, offerId: r.offer_id } });
      }
    }
    if (rows.length)
      await trx
        .insertInto('callback_deliveries')
        .values(rows)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    await markEventsDispatched(
      trx,
      events.map((e) => e.id),
    );
    const leasedLanes = new Set(leased.map((l) => laneKey(l.lane)));
    const lanes = uniqueLanes(rows.map((r) => ({ endpointId: r.endpoint_id, offerId: r.offer_id }))).filter(
      (l) => !leasedLanes.has(laneKey(l)),
    );
    return { events: events.length, lanes, leased };
  });
}

/** The lanes of these offers with a pending delivery. */
async function pendingLanes(db: Db | Trx, offerIds: string[]): Promise<DeliveryLane[]> {
  const rows = await db
    .selectFrom('callback_deliveries')
    .select(['endpoint_id', 'offer_id'])
    .distinct()
    .where('status', '=', 'pending')
    .where('offer_id', 'in', offerIds)
    .execute();
  return rows.map((r) => ({ endpointId: r.endpoint_id, offerId: r.offer_id }));
}

/** Extends the caller's lease on a pending delivery, if it still holds it (not lapsed); false otherwise. */
export async function renewLease(db: Db, deliveryId: string, seconds: number): Promise<boolean> {
  const r = await db
    .updateTable('callback_deliveries')
    .set({ leased_until: sql<Date>`now() + make_interval(secs => ${seconds})` })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .where('leased_until', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Of these lanes, those that still have a pending delivery (their workflow has work). */
export async function lanesWithPending(db: Db, lanes: DeliveryLane[]): Promise<DeliveryLane[]> {
  if (!lanes.length) return [];
  const wanted = new Set(lanes.map(laneKey));
  const found = await pendingLanes(db, [...new Set(lanes.map((l) => l.offerId))]);
  return found.filter((l) => wanted.has(laneKey(l)));
}

/** New deliveries of one event (same event id, so receivers that kept it can drop it), to one endpoint or to all it went to before. */
export async function replayEvent(
  db: Db,
  eventId: string,
  callbackFor: CallbackFor,
  endpointId?: string,
): Promise<{ deliveries: string[]; lanes: DeliveryLane[] }> {
  const event = await findOfferEvent(db, eventId);
  if (!event) return { deliveries: [], lanes: [] };
  const [offer] = await findOffersByIds(db, [event.offer_id]);
  if (!offer) throw new Error(`offer ${event.offer_id} of event ${eventId} not found`);
  let q = enabledEndpoints(db);
  if (endpointId) q = q.where('e.id', '=', endpointId);
  else q = q.where('e.id', 'in', db.selectFrom('callback_deliveries').select('endpoint_id').where('event_id', '=', eventId));
  const rows = deliveriesFor(event, offer, await q.execute(), callbackFor, true);
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
    .select(['id', 'next_attempt_at', 'leased_until'])
    .where('endpoint_id', '=', lane.endpointId)
    .where('offer_id', '=', lane.offerId)
    .where('status', '=', 'pending')
    .orderBy('sequence')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
}

/** One delivery with what its attempt needs of its endpoint (URL, format, state, secrets). */
export function findDeliveryForAttempt(db: Db, deliveryId: string) {
  return db
    .selectFrom('callback_deliveries as d')
    .innerJoin('callback_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.event_id',
      'd.payload',
      'd.status',
      'd.attempts',
      'd.endpoint_id',
      'e.url',
      'e.format',
      'e.status as endpoint_status',
      'e.disabled_reason',
      'e.secret',
      'e.previous_secret',
      'e.previous_secret_expires_at',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

/** One finished attempt of one delivery, as `recordDeliveryAttempt` writes it. */
export interface DeliveryAttempt {
  deliveryId: string;
  endpointId: string;
  /** This attempt's number, from 1. */
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  ok: boolean;
  /** Seconds until the next attempt, or null when this failed attempt was the last. */
  retryInSeconds: number | null;
  /** CALLBACK_DISABLE_AFTER_SECONDS: an endpoint failing for this long is disabled. */
  disableAfterSeconds: number;
}

/** What became of the delivery and its endpoint after an attempt. */
export type AttemptRecorded = { outcome: 'delivered' | 'failed' | 'retry' } | { outcome: 'disabled'; clientId: string; reason: string };

/**
 * Records one attempt in one transaction: the attempt row, the delivery's new state, and the
 * endpoint's failure streak, disabling the endpoint (and cancelling its pending deliveries) once
 * every attempt has failed for `disableAfterSeconds`.
 */
export async function recordDeliveryAttempt(db: Db, a: DeliveryAttempt): Promise<AttemptRecorded> {
  return db.transaction().execute(async (trx): Promise<AttemptRecorded> => {
    await trx
      .insertInto('callback_attempts')
      .values({
        id: newId('cba'),
        delivery_id: a.deliveryId,
        attempt: a.attempt,
        started_at: a.startedAt,
        duration_ms: a.durationMs,
        status_code: a.statusCode,
        error: a.error,
      })
      .execute();
    const now = new Date();
    await trx
      .updateTable('callback_deliveries')
      .set({
        attempts: a.attempt,
        last_status_code: a.statusCode,
        last_error: a.error,
        status: a.ok ? 'delivered' : a.retryInSeconds === null ? 'failed' : 'pending',
        next_attempt_at: a.retryInSeconds === null ? null : new Date(now.getTime() + a.retryInSeconds * 1000),
        delivered_at: a.ok ? now : null,
        // The attempt is over: whoever made it, the lane's workflow owns what comes next.
        leased_until: null,
        updated_at: now,
      })
      .where('id', '=', a.deliveryId)
      .execute();
    if (a.ok) {
      await trx
        .updateTable('callback_endpoints')
        .set({ consecutive_failures: 0, failing_since: null, last_success_at: now })
        .where('id', '=', a.endpointId)
        .execute();
      return { outcome: 'delivered' };
    }
    const ep = await trx
      .updateTable('callback_endpoints')
      .set((eb) => ({
        consecutive_failures: eb('consecutive_failures', '+', 1),
        failing_since: eb.fn.coalesce('failing_since', eb.val(a.startedAt)),
      }))
      .where('id', '=', a.endpointId)
      .returning(['client_id', 'consecutive_failures', 'failing_since'])
      .executeTakeFirstOrThrow();
    const failingFor = ep.failing_since ? now.getTime() - new Date(ep.failing_since).getTime() : 0;
    if (failingFor >= a.disableAfterSeconds * 1000) {
      const reason = `every attempt failed since ${new Date(ep.failing_since!).toISOString()} (${ep.consecutive_failures} in a row; last: ${a.error})`;
      await disableEndpoint(trx, a.endpointId, reason);
      return { outcome: 'disabled', clientId: ep.client_id, reason };
    }
    return { outcome: a.retryInSeconds === null ? 'failed' : 'retry' };
  });
}

function laneKey(l: DeliveryLane): string {
  return `${l.endpointId} ${l.offerId}`;
}

function uniqueLanes(lanes: DeliveryLane[]): DeliveryLane[] {
  const seen = new Map(lanes.map((l) => [laneKey(l), l]));
  return [...seen.values()];
}

/**
 * Per enabled endpoint, the age of its oldest pending delivery (0 when it has none), by the
 * database's clock: how far behind its callbacks are (for /metrics). Reads only pending rows
 * (the callback_deliveries_pending partial index).
 */
export async function callbackLagByEndpoint(db: Db): Promise<{ endpointId: string; seconds: number }[]> {
  const rows = await db
    .selectFrom('callback_endpoints as e')
    .leftJoin('callback_deliveries as d', (j) => j.onRef('d.endpoint_id', '=', 'e.id').on('d.status', '=', 'pending'))
    .select(['e.id', sql<string>`coalesce(extract(epoch from now() - min(d.created_at)), 0)`.as('lag')])
    .where('e.status', '=', 'enabled')
    .groupBy('e.id')
    .orderBy('e.id')
    .execute();
  return rows.map((r) => ({ endpointId: r.id, seconds: Math.max(0, Number(r.lag)) }));
}
