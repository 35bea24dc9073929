import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireSignupOpen } from '../../../services/developer-signups';
import type { ServiceDeps } from '../../../services/deps';
import { ApiError } from '../../errors';
import { rateLimitPlugin } from '../../plugins/rate-limit';
import { signupNotOfferedPage } from './signup-html';
import { SIGNUP_PAGE_PATH, signupPageRoutes } from './signup-page';
import { signupApiRoutes } from './signups';

/*
 * Developer sign-up (spec 5.3; docs/decisions.md): in the sandbox, anyone gets a key pair by
 * themselves, through the API (`POST /developer/beta/signups`, its own OpenAPI document) or the
 * page at /developer/signup. No API key. Both share one tight per-address budget on top of the
 * usual per-second limit; off (404) in production and with DEVELOPER_SIGNUP=off.
 */

export const DEVELOPER_PREFIX = '/developer/beta';
export { SIGNUP_PAGE_PATH };

/** An `onRequest` hook counting a sign-up attempt of the client's address; 429 past the hourly budget. */
export type SignupLimit = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The sign-up budget: `perHour` attempts per client address (an IPv6 address counts by its /64,
 * which one subscriber usually holds whole), page and API together. Every attempt counts, refused
 * ones too, so the budget also bounds guessing which addresses have signed up. It lives in the
 * rate-limit plugin's store: Redis (shared by every API process) when REDIS_URL is set.
 */
function signupLimiter(app: FastifyInstance, perHour: number): SignupLimit {
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

/** The sign-up routes, when this deployment offers sign-up (the sandbox, unless DEVELOPER_SIGNUP=off). */
export const developerRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  // The usual per-address limit per second (no key here), then the hourly sign-up budget.
  await rateLimitPlugin(app, { perSecond: deps.config.RATE_LIMIT_PER_SECOND, redisUrl: deps.config.REDIS_URL });
  const limit = signupLimiter(app, deps.config.DEVELOPER_SIGNUPS_PER_HOUR);
  await app.register(signupApiRoutes, { deps, limit, prefix: DEVELOPER_PREFIX });
  await app.register(signupPageRoutes, { deps, limit });
};

/**
 * Where sign-up is off (production; DEVELOPER_SIGNUP=off): its addresses answer 404 with the
 * reason, in the error envelope for the API and as a page for browsers. No document is served.
 */
export const developerSignupOff: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const refuse = () => requireSignupOpen(deps);
  // The page's form body is read (and ignored) so that the answer is this 404, not a 415.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, _body, done) =>
    done(null, {}),
  );
  app.all(`${DEVELOPER_PREFIX}/*`, { schema: { hide: true } }, async () => refuse());
  app.all(SIGNUP_PAGE_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.status(404).type('text/html; charset=utf-8').send(signupNotOfferedPage(deps.config.SERVICE_ENVIRONMENT)),
  );
};
