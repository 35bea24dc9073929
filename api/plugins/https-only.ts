import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors';

/**
 * REQUIRE_HTTPS (the default in production): a request that did not arrive over HTTPS is refused
 * before anything reads its key or password. Behind a TLS-terminating proxy the scheme is the
 * trusted proxy's X-Forwarded-Proto (TRUST_PROXY); an untrusted client cannot claim it.
 * /health stays reachable over plain HTTP for load balancers' checks, which carry no secret.
 */
export const httpsOnly = fp(async function httpsOnly(app: FastifyInstance) {
  app.addHook('onRequest', async (request) => {
    if (request.protocol === 'https' || request.url === '/health') return;
    throw new ApiError(403, 'forbidden', 'this deployment accepts HTTPS only; use https://');
  });
});
