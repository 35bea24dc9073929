import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashApiKey } from '../../services/api-clients';
import type { RateLimitCounts, WindowCount } from '../../services/deps';
import { ApiError } from '../errors';
import { API_KEY_HEADER } from './auth';

/** Statuses the key check answers for a missing, unknown or wrong-environment key: a guess. */
const BAD_KEY_STATUS = 401;

const limited = (max: number, ttlMs: number, what: string, per: string) =>
  new ApiError(429, 'rate_limited', `rate limit of ${max} ${what} per ${per} exceeded; retry after ${Math.ceil(ttlMs / 1000)} s`);

/** `@fastify/rate-limit`'s store interface over the shared counts (one for every scope and route). */
function sharedStore(counts: RateLimitCounts): FastifyRateLimitStoreCtor {
  type Done = (error: Error | null, result?: { current: number; ttl: number }) => void;
  const answer = (count: Promise<WindowCount>, done: Done) =>
    void count.then(
      ({ hits, msLeft }) => done(null, { current: hits, ttl: msLeft }),
      (err: Error) => done(err),
    );
  class SharedStore implements FastifyRateLimitStore {
    incr(key: string, done: Done, timeWindow: number) {
      answer(counts.hit(key, timeWindow), done);
    }
    /** The plugin's non-mutating look (`{ increment: false }`). */
    read(key: string, done: Done, timeWindow: number) {
      answer(counts.peek(key, timeWindow), done);
    }
    child() {
      return this;
    }
  }
  return SharedStore;
}

/**
 * The spec's per-key limit (RATE_LIMIT_PER_SECOND requests each second, counted by key hash), and
 * the same budget per client address for requests with a bad or missing key, enforced before the
 * key lookup so that guessing keys costs no further database query once over it.
 *
 * The counts live in Postgres (`counts`, store/rate-limits.ts), which every API process shares, so
 * the limit holds across processes. A database that does not answer lets requests through
 * (skipOnError; the counts log the warning): the limit protects the service, it must not take it
 * down. `windowMs` (a second) is shorter only in tests that wait for a window to pass.
 */
export async function rateLimitPlugin(app: FastifyInstance, opts: { perSecond: number; counts: RateLimitCounts; windowMs?: number }) {
  const windowMs = opts.windowMs ?? 1000;
  const per = windowMs === 1000 ? 'second' : `${windowMs} ms`;
  await app.register(rateLimit, {
    max: opts.perSecond,
    timeWindow: windowMs,
    store: sharedStore(opts.counts),
    skipOnError: true,
    keyGenerator: (request) => {
      const key = request.headers[API_KEY_HEADER];
      return typeof key === 'string' && key ? `key:${hashApiKey(key)}` : `ip:${request.ip}`;
    },
    errorResponseBuilder: (_request, context) => limited(context.max, context.ttl, 'requests', per),
  });

  // Bad keys per address: read (not counted) before the key check, counted when it answers 401.
  // The plugin's own per-route hook runs only after the key check (route hooks follow scope hooks).
  const badKeys = app.createRateLimit({ keyGenerator: (request: FastifyRequest) => `bad-key:${request.ip}` });
  app.addHook('onRequest', async (request, reply) => {
    const state = await badKeys(request, { increment: false });
    if (state.isAllowed || state.remaining > 0) return;
    reply.header('retry-after', String(Math.max(1, state.ttlInSeconds)));
    throw limited(state.max, state.ttl, 'requests with a bad or missing API key', per);
  });
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode === BAD_KEY_STATUS) await badKeys(request);
  });
}
