import pg from 'pg';
import { RateLimiterPostgres, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../platform/logger';

/*
 * Table rate_limits (migration 2026_11_27_0040): the rate limit's counts, shared by every API
 * process of a deployment because they all use one Postgres. Only this module touches it, through
 * rate-limiter-flexible's Postgres store (the library writes the SQL: an upsert per hit, a select
 * per peek), on a pool of its own:
 * - its connection and query timeouts are a second, so that a database that does not answer lets
 *   requests through after a second at most (the callers fail open), while the app's own pool keeps
 *   no such bound (a statement may run longer than a second);
 * - a saturated app pool (slow orders, reports) does not queue every request's count behind it.
 * It holds at most RATE_LIMIT_CONNECTIONS connections per API process.
 *
 * Expired rows are deleted with the library's own statement (`clearExpired`) on a schedule of ours
 * rather than its built-in timer, which cannot be stopped and starts in every process that merely
 * builds the counts (workers, the admin CLI): from the first count on, every five minutes, each API
 * process deletes the rows whose window ended over a minute ago (the minute covers other hosts'
 * clocks); the timer does not hold the process open and stops with `close()`.
 */

/** Connections of the counting pool per API process: each count is one short statement. */
export const RATE_LIMIT_CONNECTIONS = 4;
/** How long a count may wait for a connection, and then for its answer, before the caller gives up. */
const TIMEOUT_MS = 1000;
const SWEEP_EVERY_MS = 5 * 60_000;
const SWEEP_MARGIN_MS = 60_000;

/** rate-limiter-flexible's delete of rows expired before a time: public in its code, missing from its types. */
type Sweeping = { clearExpired(expiredBeforeMs: number): Promise<void> };

/** A key's current window: the hits counted in it (this one included) and the ms it has left. */
export interface WindowCount {
  hits: number;
  msLeft: number;
}

/** Fixed-window hit counts by key; every method rejects when the database does not answer. */
export interface RateLimitCounts {
  /** Counts one hit of `key` in its window of `windowMs` (a new window when the last one ended). */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** The same without counting: no hits and no time left when no window is open. */
  peek(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

const counted = (res: RateLimiterRes | null): WindowCount =>
  res ? { hits: res.consumedPoints, msLeft: Math.max(0, res.msBeforeNext) } : { hits: 0, msLeft: 0 };

/**
 * Counts in the database at `url`. The first failure after a success is logged as a warning (the
 * rate limit is off meanwhile), and the first success after that at info, not every failed request.
 */
export function createRateLimitCounts(url: string, log: Logger, opts: { sweepEveryMs?: number } = {}): RateLimitCounts {
  const pool = new pg.Pool({
    connectionString: url,
    max: RATE_LIMIT_CONNECTIONS,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: TIMEOUT_MS,
    query_timeout: TIMEOUT_MS,
  });
  // As in store/db.ts: a lost connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  // `points` is what the library's consume() refuses beyond; only penalty() (count, never refuse)
  // and get() are used here, so it does not matter. The window comes with each call.
  const limiter = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: 'rl',
    points: 1,
    duration: 1,
  });
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () =>
    (sweeper ??= setInterval(
      // Never rejects: a failed delete is tried again next time.
      () => void (limiter as unknown as Sweeping).clearExpired(Date.now() - SWEEP_MARGIN_MS),
      opts.sweepEveryMs ?? SWEEP_EVERY_MS,
    ).unref());
  let down = false;
  const watched = async (call: Promise<RateLimiterRes | null>): Promise<WindowCount> => {
    try {
      const res = counted(await call);
      if (down) log.info('rate limit: the database answers again; requests are counted');
      down = false;
      return res;
    } catch (err) {
      if (!down) log.warn({ err }, 'rate limit: the database does not answer; requests are not counted meanwhile');
      down = true;
      throw err;
    }
  };
  return {
    hit: (key, windowMs) => {
      sweep();
      return watched(limiter.penalty(key, 1, { customDuration: windowMs / 1000 }));
    },
    peek: (key, windowMs) => watched(limiter.get(key, { customDuration: windowMs / 1000 })),
    async close() {
      clearInterval(sweeper);
      await pool.end();
    },
  };
}
