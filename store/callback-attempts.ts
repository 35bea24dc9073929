import type { Db } from './db';
import { newId } from './ids';
import { sql } from 'kysely';
import { recordDeliveryOutcome, setPacedAt } from './callback-deliveries';
import { disableEndpoint, recordEndpointFailure, recordEndpointSuccess, reserveEndpointSlot } from './callback-endpoints';
import { appendClientEvent } from './offer-events';
import type { FailureStreak } from '../domain/callback-failures';

/*
 * Callback attempts (callback_attempts): one row per HTTP attempt of a delivery, written with the
 * delivery's new state and the endpoint's failure streak in one transaction.
 */

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
  /**
   * The rule that gives up on a failing endpoint (domain/callback-failures.ts `disableReason`):
   * why it is disabled now, or null. Applied to the streak inside the attempt's transaction.
   */
  disableWhen: (streak: FailureStreak, now: Date) => string | null;
}

/** What became of the delivery and its endpoint after an attempt. */
export type AttemptRecorded = { outcome: 'delivered' | 'failed' | 'retry' } | { outcome: 'disabled'; clientId: string; reason: string };

/** A slot whose start passed longer ago than this is not kept: the attempt takes a new one, so a late lane does not burst. */
const STALE_SLOT_MS = 1_000;

/**
 * The pacing slot of a delivery's next attempt, on an endpoint with max_per_second: the one it
 * holds (unless stale), or the endpoint's next (`reserveEndpointSlot`), held from now on. Returns
 * how many ms from now it starts. Slots are handed out one after the other, so attempts go out in
 * the order they asked, 1/max_per_second apart, whichever lane and worker they come from.
 */
export async function paceAttempt(db: Db, d: { deliveryId: string; endpointId: string; perSecond: number }): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const held = await trx
      .selectFrom('callback_deliveries')
      .select(sql<string>`extract(epoch from (paced_at - clock_timestamp())) * 1000`.as('in_ms'))
      .where('id', '=', d.deliveryId)
      .where('paced_at', '>', sql<Date>`clock_timestamp() - make_interval(secs => ${STALE_SLOT_MS / 1000})`)
      .executeTakeFirst();
    if (held) return Math.max(0, Math.ceil(Number(held.in_ms)));
    const { slot, inMs } = await reserveEndpointSlot(trx, d.endpointId, d.perSecond);
    await setPacedAt(trx, d.deliveryId, slot);
    return inMs;
  });
}

/**
 * Records one attempt in one transaction: the attempt row, the delivery's new state, and the
 * endpoint's failure streak, disabling the endpoint (and cancelling its pending deliveries) when
 * `disableWhen` says so; its client then gets an `endpoint.disabled` event (feed, and any other
 * endpoint it has), in the same transaction.
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
    const { attempt, statusCode, error, ok, retryInSeconds } = a;
    await recordDeliveryOutcome(trx, a.deliveryId, { attempt, statusCode, error, ok, retryInSeconds, at: now });
    if (a.ok) {
      await recordEndpointSuccess(trx, a.endpointId, now);
      return { outcome: 'delivered' };
    }
    const { clientId, streak } = await recordEndpointFailure(trx, a.endpointId, { startedAt: a.startedAt, error });
    const reason = a.disableWhen(streak, now);
    if (reason !== null) {
      const ep = await disableEndpoint(trx, a.endpointId, reason);
      const disabledAt = new Date(ep.disabled_at!).toISOString();
      await appendClientEvent(trx, {
        key: `endpoint.disabled:${ep.id}:${disabledAt}`,
        clientId,
        type: 'endpoint.disabled',
        data: { endpoint: { id: ep.id, url: ep.url, description: ep.description, disabled_reason: reason, disabled_at: disabledAt } },
      });
      return { outcome: 'disabled', clientId, reason };
    }
    return { outcome: a.retryInSeconds === null ? 'failed' : 'retry' };
  });
}
