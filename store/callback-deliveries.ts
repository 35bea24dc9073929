import { sql } from 'kysely';
import type { Db, Trx } from './db';

/*
 * Callback deliveries (callback_deliveries): one row per (event, endpoint) that must be sent,
 * written by the fan-out (store/callback-fanout.ts) before any workflow is woken to send it. A
 * lane is one endpoint and one offer: its deliveries go out one at a time, lowest sequence first.
 */

/** A (endpoint, offer) pair: one delivery workflow sends that offer's events to that endpoint, in order. */
export interface DeliveryLane {
  endpointId: string;
  offerId: string;
}

export function laneKey(l: DeliveryLane): string {
  return `${l.endpointId} ${l.offerId}`;
}

export function uniqueLanes(lanes: DeliveryLane[]): DeliveryLane[] {
  const seen = new Map(lanes.map((l) => [laneKey(l), l]));
  return [...seen.values()];
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

/** The lanes of these offers with a pending delivery. */
export async function pendingLanes(db: Db | Trx, offerIds: string[]): Promise<DeliveryLane[]> {
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

/** Hands a delivery back to its lane's workflow: whoever leased it (the dispatcher's fast path) will not attempt it now. */
export async function releaseLease(db: Db, deliveryId: string): Promise<void> {
  await db.updateTable('callback_deliveries').set({ leased_until: null }).where('id', '=', deliveryId).execute();
}

/** Of these lanes, those that still have a pending delivery (their workflow has work). */
export async function lanesWithPending(db: Db, lanes: DeliveryLane[]): Promise<DeliveryLane[]> {
  if (!lanes.length) return [];
  const wanted = new Set(lanes.map(laneKey));
  const found = await pendingLanes(db, [...new Set(lanes.map((l) => l.offerId))]);
  return found.filter((l) => wanted.has(laneKey(l)));
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
    .where(
      sql<boolean>`not exists (select 1 from callback_deliveries s where s.endpoint_id = d.endpoint_id and s.offer_id = d.offer_id
        and s.status = 'pending' and s.next_attempt_at > now() - make_interval(secs => ${graceSeconds}))`,
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
      'd.paced_at',
      'e.max_per_second',
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

/** The pacing slot a delivery's next attempt holds (store/callback-attempts.ts `paceAttempt`). */
export async function setPacedAt(trx: Trx, deliveryId: string, slot: Date): Promise<void> {
  await trx.updateTable('callback_deliveries').set({ paced_at: slot }).where('id', '=', deliveryId).execute();
}

/** A delivery's state after an attempt: delivered, failed for good (no retry), or pending until `retryInSeconds` from now. */
export async function recordDeliveryOutcome(
  trx: Trx,
  deliveryId: string,
  a: { attempt: number; statusCode: number | null; error: string | null; ok: boolean; retryInSeconds: number | null; at: Date },
): Promise<void> {
  await trx
    .updateTable('callback_deliveries')
    .set({
      attempts: a.attempt,
      last_status_code: a.statusCode,
      last_error: a.error,
      status: a.ok ? 'delivered' : a.retryInSeconds === null ? 'failed' : 'pending',
      next_attempt_at: a.retryInSeconds === null ? null : new Date(a.at.getTime() + a.retryInSeconds * 1000),
      delivered_at: a.ok ? a.at : null,
      // The attempt is over: whoever made it, the lane's workflow owns what comes next.
      leased_until: null,
      // Its pacing slot is used: the next attempt takes a new one.
      paced_at: null,
      updated_at: a.at,
    })
    .where('id', '=', deliveryId)
    .execute();
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

/** Which of these events a callback delivery is still kept for (their pruning waits for it). */
export async function eventsWithDeliveries(db: Db | Trx, eventIds: string[]): Promise<string[]> {
  if (!eventIds.length) return [];
  const rows = await db.selectFrom('callback_deliveries').select('event_id').distinct().where('event_id', 'in', eventIds).execute();
  return rows.map((r) => r.event_id);
}

/**
 * Deletes up to `limit` finished deliveries (delivered, failed, cancelled: never a pending one)
 * made more than `keepSeconds` ago, oldest first, with their attempts (the foreign key cascades),
 * in one statement; answers how many deliveries it deleted (fewer than `limit`: done for now).
 */
export async function pruneFinishedDeliveries(db: Db, a: { keepSeconds: number; limit: number }): Promise<number> {
  const result = await sql`delete from callback_deliveries where status <> 'pending' and id in (
      select id from callback_deliveries
       where created_at < now() - make_interval(secs => ${a.keepSeconds}) and status <> 'pending'
       order by created_at limit ${a.limit} for update skip locked
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
