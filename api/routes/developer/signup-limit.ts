import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors';

/** An `onRequest` hook counting a sign-up attempt of the client's address; 429 past the hourly budget. */
export type SignupLimit = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The sign-up budget: `perHour` attempts per client address (an IPv6 address counts by its /64,
 * which one subscriber usually holds whole), page and API together. Every attempt counts, refused
 * ones too, so the budget also bounds guessing which addresses have signed up. It lives in the
 * rate-limit plugin's store: Postgres, shared by every API process.
 */
export function signupLimiter(app: FastifyInstance, perHour: number): SignupLimit {
  const count = app.createRateLimit({
    max: perHour,
    timeWindow: 3600_000,
    keyGenerator: (request: FastifyRequest) => `signup:${normalizeIP(request.ip, 64)}`,
  });
  return async (request, reply) => {
    const state = await count(request);
    if (state.isAllowed || !state.isExceeded) return;
    const wait = Math.max(1, state.ttlInSeconds);
    reply.header('retry-after', String(wait));
    reply.header('x-ratelimit-limit', String(state.max));
    reply.header('x-ratelimit-remaining', '0');
    reply.header('x-ratelimit-reset', String(wait));
    throw new ApiError(429, 'rate_limited', `at most ${state.max} sign-ups per hour from one address; retry after ${wait} s`);
  };
}
