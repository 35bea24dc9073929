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
 * Expired rows are deleted by the library's own cleanup: every five minutes each process deletes
 * the rows whose window ended more than an hour ago (a timer that does not hold the process open).
 */

/** Connections of the counting pool per API process: each count is one short statement. */
export const RATE_LIMIT_CONNECTIONS = 4;
/** How long a count may wait for a connection, and then for its answer, before the caller gives up. */
const TIMEOUT_MS = 1000;

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
export function createRateLimitCounts(url: string, log: Logger): RateLimitCounts {
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
    clearExpiredByTimeout: true,
    keyPrefix: 'rl',
    points: 1,
    duration: 1,
  });
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
    hit: (key, windowMs) => watched(limiter.penalty(key, 1, { customDuration: windowMs / 1000 })),
    peek: (key, windowMs) => watched(limiter.get(key, { customDuration: windowMs / 1000 })),
    async close() {
      await pool.end();
    },
  };
}
