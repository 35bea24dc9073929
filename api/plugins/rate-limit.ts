import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { hashApiKey } from '../../services/api-clients';
import { ApiError } from '../errors';
import { API_KEY_HEADER } from './auth';

/**
 * The spec's per-key limit (RATE_LIMIT_PER_SECOND requests each second), counted by key hash, or
 * by address for requests without a key. The counters live in this process; several API instances
 * share one limit by giving @fastify/rate-limit a Redis store (its `redis` option).
 */
export async function rateLimitPlugin(app: FastifyInstance, opts: { perSecond: number }) {
  await app.register(rateLimit, {
    max: opts.perSecond,
    timeWindow: 1000,
    keyGenerator: (request) => {
      const key = request.headers[API_KEY_HEADER];
      return typeof key === 'string' && key ? `key:${hashApiKey(key)}` : `ip:${request.ip}`;
    },
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        429,
        'rate_limited',
        `rate limit of ${context.max} requests per second exceeded; retry after ${Math.ceil(context.ttl / 1000)} s`,
      ),
  });
}
