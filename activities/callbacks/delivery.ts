import { toXml } from '../../schemas/xml';
import {
  cancelPendingDeliveries,
  findDeliveryForAttempt,
  nextPendingDelivery,
  releaseLease,
  type DeliveryLane,
} from '../../store/callback-deliveries';
import { setTimeout as delay } from 'node:timers/promises';
import { paceAttempt, recordDeliveryAttempt } from '../../store/callback-attempts';
import { disableReason } from '../../domain/callback-failures';
import type { ActivityDeps } from '../deps';
import { postOnce } from './http';
import { signatureHeaders, signingSecrets } from './signing';

export type AttemptOutcome =
  | { outcome: 'delivered' | 'failed' | 'cancelled' | 'not_pending'; statusCode?: number | null }
  /** `paced`: nothing was sent; the endpoint's next pacing slot for it is this far off (max_per_second). */
  | { outcome: 'retry'; retryInSeconds: number; statusCode: number | null; paced?: true };

/**
 * How long an attempt may wait in the activity for its pacing slot; a slot further off is waited
 * for by the lane workflow's durable timer (the 'retry' outcome), so a backlog holds no worker slots.
 */
const PACE_HOLD_MS = 2_000;

/**
 * One attempt of one delivery: sign, POST once, record the attempt, and say what comes next
 * (the next wait from CALLBACK_RETRY_SCHEDULE, or the end). HTTP failures are results, not
 * errors. The lane workflow's activity and the dispatcher's fan-out fast path both attempt so.
 */
export function createDeliveryAttempt(deps: Pick<ActivityDeps, 'db' | 'config' | 'log' | 'metrics'>) {
  const { db, config } = deps;
  const log = deps.log.child({ component: 'callbacks' });
  return async function attemptDelivery(input: { deliveryId: string }): Promise<AttemptOutcome> {
    const d = await findDeliveryForAttempt(db, input.deliveryId);
    if (!d || d.status !== 'pending') return { outcome: 'not_pending' };
    if (d.endpoint_status !== 'enabled') {
      await cancelPendingDeliveries(db, d.endpoint_id, d.disabled_reason ?? 'disabled');
      return { outcome: 'cancelled' };
    }
    if (d.max_per_second !== null) {
      const inMs = await paceAttempt(db, { deliveryId: d.id, endpointId: d.endpoint_id, perSecond: d.max_per_second });
      if (inMs > PACE_HOLD_MS) {
        // A fast attempt leased before the endpoint was paced: its lane (woken by the pump) waits for the slot instead.
        await releaseLease(db, d.id);
        return { outcome: 'retry', retryInSeconds: (inMs - PACE_HOLD_MS / 2) / 1000, statusCode: null, paced: true };
      }
      if (inMs > 0) await delay(inMs);
    }
    const at = new Date();
    const body = d.format === 'xml' ? toXml(JSON.parse(d.payload), 'event') : d.payload;
    const headers = {
      'content-type': d.format === 'xml' ? 'application/xml' : 'application/json',
      // Throws (the activity fails and Temporal retries it) when a secret cannot be opened: never unsigned.
      ...signatureHeaders(signingSecrets(d, config.CALLBACK_SECRET_KEY, at), d.event_id, at, body),
    };
    const res = await postOnce(d.url, body, headers, {
      timeoutMs: config.CALLBACK_TIMEOUT_SECONDS * 1000,
      environment: config.SERVICE_ENVIRONMENT,
    });
    const ok = res.statusCode !== null && res.statusCode >= 200 && res.statusCode < 300;
    const attempt = d.attempts + 1;
    const waits = config.CALLBACK_RETRY_SCHEDULE;
    const retryIn = !ok && attempt <= waits.length ? waits[attempt - 1] : null;
    const error = ok ? null : (res.error ?? `HTTP ${res.statusCode}`);
    deps.metrics.callbackAttempt(ok ? 'delivered' : retryIn === null ? 'gave_up' : 'failed_attempt');
    const recorded = await recordDeliveryAttempt(db, {
      deliveryId: d.id,
      endpointId: d.endpoint_id,
      attempt,
      startedAt: at,
      durationMs: res.durationMs,
      statusCode: res.statusCode,
      error,
      ok,
      retryInSeconds: retryIn,
      disableWhen: (streak, now) => disableReason(streak, config.CALLBACK_DISABLE_AFTER_SECONDS, now),
    });
    switch (recorded.outcome) {
      case 'delivered':
        return { outcome: 'delivered', statusCode: res.statusCode };
      case 'disabled':
        // The operator is told here (error log) and by `callbacks show` (status disabled, reason).
        log.error(
          { endpoint_id: d.endpoint_id, client_id: recorded.clientId, reason: recorded.reason },
          'callback endpoint disabled after failing for too long; operator action needed (callbacks show / callbacks set)',
        );
        return { outcome: 'cancelled', statusCode: res.statusCode };
      case 'failed':
        log.warn(
          { delivery_id: d.id, event_id: d.event_id, endpoint_id: d.endpoint_id, attempts: attempt, error },
          'callback delivery failed after its last retry',
        );
        return { outcome: 'failed', statusCode: res.statusCode };
      case 'retry':
        return { outcome: 'retry', retryInSeconds: retryIn!, statusCode: res.statusCode };
    }
  };
}

/** What the lane workflow does next: attempt `deliveryId` after `waitSeconds`, or (busy) wait that long for the dispatcher's attempt of it. */
export interface NextDelivery {
  deliveryId: string;
  waitSeconds: number;
  /** The dispatcher holds a lease on this delivery and is attempting it: the lane must not. */
  busy?: boolean;
}

/** The per-lane delivery steps of the callback delivery workflow. */
export function createCallbackDeliveryActivities(deps: Pick<ActivityDeps, 'db' | 'config' | 'log' | 'metrics'>) {
  const { db } = deps;
  const secondsUntil = (t: Date | string) => Math.max(0, Math.ceil((new Date(t).getTime() - Date.now()) / 1000));

  return {
    /** The lane's next pending delivery and how long until it is due (0 unless a retry is scheduled or it is leased). */
    async nextCallbackDelivery(lane: DeliveryLane): Promise<NextDelivery | null> {
      const d = await nextPendingDelivery(db, lane);
      if (!d) return null;
      if (d.leased_until && new Date(d.leased_until).getTime() > Date.now()) {
        return { deliveryId: d.id, waitSeconds: secondsUntil(d.leased_until), busy: true };
      }
      return { deliveryId: d.id, waitSeconds: d.next_attempt_at ? secondsUntil(d.next_attempt_at) : 0 };
    },

    /** One attempt of one delivery (createDeliveryAttempt); Temporal retries it only for our own faults (database, crash). */
    attemptCallbackDelivery: createDeliveryAttempt(deps),
  };
}
