import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { toXml } from '../schemas/xml';
import { revenueShares } from '../domain/money';
import type { Config } from '../infra/config';
import { callbackDeliveries } from '../infra/metrics';
import { callbackDeliveryWorkflowId } from '../workflows/shared/ids';
import {
  cancelPendingDeliveries,
  dispatchEvents,
  disableEndpoint,
  nextPendingDelivery,
  signingSecrets,
  staleLanes,
  type DeliveryLane,
} from '../store/callbacks';
import { postOnce } from './callbacks/http';
import { signatureHeaders } from './callbacks/signing';
import type { ActivityDeps } from './deps';
import { newId } from '../store/ids';

/** Events taken from the outbox per transaction. */
const DISPATCH_BATCH = 100;
/** How long a lane may look idle with work pending before the sweep wakes its workflow again. */
const STALE_LANE_SECONDS = 60;

/** A promise that resolves when the worker starts shutting down (never without a signal), and its listener's removal. */
function whenAborted(signal?: AbortSignal): { promise: Promise<void>; dispose(): void } {
  let onAbort = () => undefined as void;
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal?.removeEventListener('abort', onAbort) };
}

/** Starts (or wakes) the delivery workflow of one (endpoint, offer) lane. Idempotent. */
export async function wakeLane(
  temporal: Client,
  taskQueue: string,
  config: Pick<Config, 'CALLBACK_TIMEOUT_SECONDS'>,
  lane: DeliveryLane,
): Promise<void> {
  await temporal.workflow.signalWithStart('callbackDeliveryWorkflow', {
    workflowId: callbackDeliveryWorkflowId(lane.endpointId, lane.offerId),
    taskQueue,
    args: [{ ...lane, attemptTimeoutSeconds: config.CALLBACK_TIMEOUT_SECONDS }],
    signal: 'wake',
    signalArgs: [],
  });
}

export type AttemptOutcome =
  | { outcome: 'delivered' | 'failed' | 'cancelled' | 'not_pending'; statusCode?: number | null }
  | { outcome: 'retry'; retryInSeconds: number; statusCode: number | null };

/** The callback activities: the outbox pump (dispatcher) and the per-lane delivery steps. */
export function createCallbackActivities(deps: Pick<ActivityDeps, 'db' | 'config' | 'temporal' | 'log' | 'stopping'>) {
  const { db, config, temporal } = deps;
  const log = deps.log.child({ component: 'callbacks' });

  async function wakeAll(taskQueue: string, lanes: DeliveryLane[]) {
    for (const lane of lanes) await wakeLane(temporal, taskQueue, config, lane);
  }

  return {
    /**
     * Runs for `runForMs`, moving new outbox events into deliveries every `pollMs` and waking their
     * lanes; every half minute it also wakes lanes whose wake-up was lost. Heartbeats, so a worker
     * shutdown or crash hands the pump to another worker quickly.
     */
    async pumpCallbackOutbox(input: { runForMs: number; pollMs: number }): Promise<{ events: number }> {
      const ctx = Context.current();
      const until = Date.now() + input.runForMs;
      let total = 0;
      let nextSweep = 0;
      const stopped = whenAborted(deps.stopping);
      try {
        while (Date.now() < until && !deps.stopping?.aborted) {
          ctx.heartbeat();
          const { events, lanes } = await dispatchEvents(db, DISPATCH_BATCH, revenueShares(config));
          total += events;
          await wakeAll(ctx.info.taskQueue, lanes);
          if (Date.now() >= nextSweep) {
            nextSweep = Date.now() + 30_000;
            await wakeAll(ctx.info.taskQueue, await staleLanes(db, STALE_LANE_SECONDS));
          }
          if (events < DISPATCH_BATCH) {
            const nap = ctx.sleep(input.pollMs);
            nap.catch(() => undefined); // if shutdown wins the race, a later cancellation is nobody's business
            await Promise.race([nap, stopped.promise]);
          }
        }
      } finally {
        stopped.dispose();
      }
      return { events: total };
    },

    /** The lane's next pending delivery and how long until it is due (0 unless a retry is scheduled). */
    async nextCallbackDelivery(lane: DeliveryLane): Promise<{ deliveryId: string; waitSeconds: number } | null> {
      const d = await nextPendingDelivery(db, lane);
      if (!d) return null;
      const wait = d.next_attempt_at ? Math.max(0, Math.ceil((new Date(d.next_attempt_at).getTime() - Date.now()) / 1000)) : 0;
      return { deliveryId: d.id, waitSeconds: wait };
    },

    /**
     * One attempt of one delivery: sign, POST once, record the attempt, and say what comes next
     * (the next wait from CALLBACK_RETRY_SCHEDULE, or the end). HTTP failures are results, not
     * errors, so Temporal only retries this activity for our own faults (database, crash).
     */
    async attemptCallbackDelivery(input: { deliveryId: string }): Promise<AttemptOutcome> {
      const d = await db
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
        .where('d.id', '=', input.deliveryId)
        .executeTakeFirst();
      if (!d || d.status !== 'pending') return { outcome: 'not_pending' };
      if (d.endpoint_status !== 'enabled') {
        await cancelPendingDeliveries(db, d.endpoint_id, d.disabled_reason ?? 'disabled');
        return { outcome: 'cancelled' };
      }
      const at = new Date();
      const body = d.format === 'xml' ? toXml(JSON.parse(d.payload), 'event') : d.payload;
      const headers = {
        'content-type': d.format === 'xml' ? 'application/xml' : 'application/json',
        ...signatureHeaders(signingSecrets(d, at), d.event_id, at, body),
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
      callbackDeliveries.inc({ outcome: ok ? 'delivered' : retryIn === null ? 'gave_up' : 'failed_attempt' });
      return db.transaction().execute(async (trx) => {
        await trx
          .insertInto('callback_attempts')
          .values({
            id: newId('cba'),
            delivery_id: d.id,
            attempt,
            started_at: at,
            duration_ms: res.durationMs,
            status_code: res.statusCode,
            error,
          })
          .execute();
        const now = new Date();
        await trx
          .updateTable('callback_deliveries')
          .set({
            attempts: attempt,
            last_status_code: res.statusCode,
            last_error: error,
            status: ok ? 'delivered' : retryIn === null ? 'failed' : 'pending',
            next_attempt_at: retryIn === null ? null : new Date(now.getTime() + retryIn * 1000),
            delivered_at: ok ? now : null,
            updated_at: now,
          })
          .where('id', '=', d.id)
          .execute();
        if (ok) {
          await trx
            .updateTable('callback_endpoints')
            .set({ consecutive_failures: 0, failing_since: null, last_success_at: now })
            .where('id', '=', d.endpoint_id)
            .execute();
          return { outcome: 'delivered', statusCode: res.statusCode };
        }
        const ep = await trx
          .updateTable('callback_endpoints')
          .set((eb) => ({
            consecutive_failures: eb('consecutive_failures', '+', 1),
            failing_since: eb.fn.coalesce('failing_since', eb.val(at)),
          }))
          .where('id', '=', d.endpoint_id)
          .returning(['client_id', 'consecutive_failures', 'failing_since'])
          .executeTakeFirstOrThrow();
        const failingFor = ep.failing_since ? now.getTime() - new Date(ep.failing_since).getTime() : 0;
        if (failingFor >= config.CALLBACK_DISABLE_AFTER_SECONDS * 1000) {
          const reason = `every attempt failed since ${new Date(ep.failing_since!).toISOString()} (${ep.consecutive_failures} in a row; last: ${error})`;
          await disableEndpoint(trx, d.endpoint_id, reason);
          // The operator is told here (error log) and by `callbacks show` (status disabled, reason).
          log.error(
            { endpoint_id: d.endpoint_id, client_id: ep.client_id, reason },
            'callback endpoint disabled after failing for too long; operator action needed (callbacks show / callbacks set)',
          );
          return { outcome: 'cancelled', statusCode: res.statusCode };
        }
        if (retryIn === null) {
          log.warn(
            { delivery_id: d.id, event_id: d.event_id, endpoint_id: d.endpoint_id, attempts: attempt, error },
            'callback delivery failed after its last retry',
          );
          return { outcome: 'failed', statusCode: res.statusCode };
        }
        return { outcome: 'retry', retryInSeconds: retryIn, statusCode: res.statusCode };
      });
    },
  };
}
