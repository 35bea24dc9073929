import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ServiceDeps } from '../services/deps';
import { authPlugin } from './plugins/auth';
import contentNegotiation, { rewriteFormatSuffix } from './plugins/content-negotiation';
import errorHandler from './plugins/error-handler';
import metrics from './plugins/metrics';
import openapi from './plugins/openapi';
import { rateLimitPlugin } from './plugins/rate-limit';
import { healthRoutes } from './routes/health';
import { OPS_PREFIX, opsRoutes } from './routes/ops';
import { categoryRoutes } from './routes/shared/categories';
import { submissionRoutes } from './routes/submission';
import { distributionRoutes } from './routes/distribution';

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: Array<{ method: string; url: string }>;
  }
}

export const SUBMISSION_PREFIX = '/submission/beta';
export const DISTRIBUTION_PREFIX = '/distribution/beta';

/** Builds the whole HTTP API around its dependencies; never listens (infra/start.ts does). */
export async function buildApp(deps: ServiceDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: deps.config.BODY_MAX_BYTES,
    rewriteUrl: rewriteFormatSuffix,
    genReqId: () => `req_${crypto.randomBytes(9).toString('base64url')}`,
    // One line per request, written by the metrics plugin with route, client and latency.
    logController: new LogController({ disableRequestLogging: true }),
    // Errors the router raises before any hook runs still leave in the error envelope.
    frameworkErrors: (error, request, reply) => {
      const [status, code] = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? [414, 'uri_too_long'] : [400, 'malformed_request'];
      (reply as FastifyReply)
        .code(status as number)
        .send({ status: 'ERROR', errors: [{ code, message: error.message }], request_id: request.id });
    },
    routerOptions: { maxParamLength: 200 },
    // Behind a proxy the client address is in X-Forwarded-For; rate limiting by address needs it.
    trustProxy: true,
  }).withTypeProvider<ZodTypeProvider>();
  // Every route, for the OpenAPI coverage and isolation tests: a new route cannot slip past them.
  const registeredRoutes: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) registeredRoutes.push({ method, url: r.url });
  });
  app.decorate('registeredRoutes', registeredRoutes);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(errorHandler);
  await app.register(contentNegotiation);
  const interfaces = [
    { prefix: SUBMISSION_PREFIX, iface: 'submission' as const, routes: submissionRoutes, title: 'Offer marketplace: submission interface' },
    {
      prefix: DISTRIBUTION_PREFIX,
      iface: 'distribution' as const,
      routes: distributionRoutes,
      title: 'Offer marketplace: distribution interface',
    },
  ];
  await app.register(openapi, { interfaces });
  await app.register(metrics);
  await app.register(healthRoutes, { deps });
  // The operators' review console: its own login (HTTP Basic, OPS_USERNAME/OPS_PASSWORD), no API key.
  await app.register(opsRoutes, { deps, prefix: OPS_PREFIX });

  for (const { prefix, iface, routes } of interfaces) {
    await app.register(
      async (scope) => {
        await rateLimitPlugin(scope, { perSecond: deps.config.RATE_LIMIT_PER_SECOND });
        await authPlugin(scope, { db: deps.db, iface, environment: deps.config.SERVICE_ENVIRONMENT });
        await scope.register(categoryRoutes, { deps });
        await scope.register(routes, { deps });
      },
      { prefix },
    );
  }
  return app;
}
