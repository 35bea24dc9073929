import crypto from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from './deps';
import { authPlugin } from './plugins/auth';
import contentNegotiation, { rewriteFormatSuffix } from './plugins/content-negotiation';
import errorHandler from './plugins/error-handler';
import { rateLimitPlugin } from './plugins/rate-limit';
import { healthRoutes } from './routes/health';
import { categoryRoutes } from './routes/shared/categories';
import { submissionRoutes } from './routes/submission';
import { distributionRoutes } from './routes/distribution';

export const SUBMISSION_PREFIX = '/submission/beta';
export const DISTRIBUTION_PREFIX = '/distribution/beta';

/** Builds the whole HTTP API around its dependencies; never listens (infra/start.ts does). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: deps.config.BODY_MAX_BYTES,
    rewriteUrl: rewriteFormatSuffix,
    genReqId: () => `req_${crypto.randomBytes(9).toString('base64url')}`,
    // Behind a proxy the client address is in X-Forwarded-For; rate limiting by address needs it.
    trustProxy: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(errorHandler);
  await app.register(contentNegotiation);
  await app.register(healthRoutes, { deps });

  const interfaces = [
    { prefix: SUBMISSION_PREFIX, iface: 'submission' as const, routes: submissionRoutes },
    { prefix: DISTRIBUTION_PREFIX, iface: 'distribution' as const, routes: distributionRoutes },
  ];
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
