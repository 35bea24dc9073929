import type { Db } from './db';
import { newId } from './ids';
import { recordDeliveryOutcome } from './callback-deliveries';
import { disableEndpoint, recordEndpointFailure, recordEndpointSuccess } from './callback-endpoints';
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

/**
 * Records one attempt in one transaction: the attempt row, the delivery's new state, and the
 * endpoint's failure streak, disabling the endpoint (and cancelling its pending deliveries) when
 * `disableWhen` says so.
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
      await disableEndpoint(trx, a.endpointId, reason);
      return { outcome: 'disabled', clientId, reason };
    }
    return { outcome: a.retryInSeconds === null ? 'failed' : 'retry' };
  });
}
