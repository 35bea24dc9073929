import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { hashApiKey } from '../../services/api-clients';
import { ApiError } from '../errors';
import { API_KEY_HEADER } from './auth';

/** Statuses the key check answers for a missing, unknown or wrong-environment key: a guess. */
const BAD_KEY_STATUS = 401;

const limited = (max: number, ttlMs: number, what: string, per: string) =>
  new ApiError(429, 'rate_limited', `rate limit of ${max} ${what} per ${per} exceeded; retry after ${Math.ceil(ttlMs / 1000)} s`);

/**
 * The spec's per-key limit (RATE_LIMIT_PER_SECOND requests each second, counted by key hash), and
 * the same budget per client address for requests with a bad or missing key, enforced before the
 * key lookup so that guessing keys costs no database query once over it.
 *
 * With `redisUrl` the counts live in Redis and every API process shares them (the limit holds
 * across instances); without it each process counts in memory. A Redis that does not answer lets
 * requests through (skipOnError): the limit protects the service, it must not take it down.
 * `windowMs` (a second) is shorter only in tests that wait for a window to pass.
 */
export async function rateLimitPlugin(app: FastifyInstance, opts: { perSecond: number; redisUrl?: string; windowMs?: number }) {
  const windowMs = opts.windowMs ?? 1000;
  const per = windowMs === 1000 ? 'second' : `${windowMs} ms`;
  const redis = opts.redisUrl ? connectRedis(app, opts.redisUrl) : undefined;
  await app.register(rateLimit, {
    max: opts.perSecond,
    timeWindow: windowMs,
    ...(redis ? { redis, nameSpace: 'offer-marketplace:rate:' } : {}),
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

/** One connection per interface scope; closed with the app. Commands fail fast while Redis is away. */
function connectRedis(app: FastifyInstance, url: string): Redis {
  // Loaded only when REDIS_URL is set, so a start without it does not pay for loading ioredis.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
  const redis = new RedisClient(url, { maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 1000 });
  let lastError = '';
  redis.on('error', (err: Error) => {
    // ioredis repeats the error on every reconnect attempt: log each new one once.
    if (err.message !== lastError) app.log.warn({ err }, 'rate limit: Redis unavailable; requests are not counted meanwhile');
    lastError = err.message;
  });
  redis.on('ready', () => (lastError = ''));
  app.addHook('onClose', async () => {
    redis.disconnect();
  });
  return redis;
}
