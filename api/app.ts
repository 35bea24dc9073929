import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ServiceDeps } from '../services/deps';
import { createApiKeyCache } from '../services/api-clients';
import { authPlugin } from './plugins/auth';
import contentNegotiation, { rewriteFormatSuffix } from './plugins/content-negotiation';
import { makeClientErrorHandler } from './plugins/client-errors';
import errorHandler from './plugins/error-handler';
import metrics from './plugins/metrics';
import tracing from './plugins/tracing';
import openapi from './plugins/openapi';
import { rateLimitPlugin } from './plugins/rate-limit';
import { idempotencyPlugin } from './plugins/idempotency';
import { httpsOnly } from './plugins/https-only';
import { healthRoutes } from './routes/health';
import { OPS_PREFIX, opsRoutes } from './routes/ops';
import { categoryRoutes } from './routes/shared/categories';
import { submissionRoutes } from './routes/submission';
import { distributionRoutes } from './routes/distribution';
import { customerVoucherRoutes } from './routes/customer/voucher-page';
import { merchantRoutes } from './routes/merchant';
import { downloadRoutes } from './routes/downloads';
import { DEVELOPER_PREFIX, developerRoutes, developerSignupOff } from './routes/developer';
import { demoKeyNotice } from './routes/developer/signup-html';
import { demoKeyShown } from './routes/developer/signup-page';
import { withCurrentVersion } from './urls';
import { INTERFACE_PREFIX } from '../domain/environment';
import { obsoleteUserRoutes } from './routes/shared/obsolete-users';

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: Array<{ method: string; url: string }>;
  }
}

/** TRUST_PROXY as Fastify takes it: a hop count trusts that many proxies nearest the server. */
function trustProxyOption(setting: number | string[] | false | undefined): boolean | string[] | ((addr: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_addr, hop) => hop < setting;
  return setting ?? false;
}

const newRequestId = () => `req_${crypto.randomBytes(9).toString('base64url')}`;

/**
 * How long a request may take to arrive, headers and body (REQUEST_TIMEOUT_SECONDS), as Node's
 * server options: the headers within the same bound (Node's own 60 s at most), and the check for
 * late requests run often enough that the bound holds (Node checks every 30 s by default).
 */
function requestTimeouts(seconds: number) {
  const requestTimeout = seconds * 1000;
  return {
    requestTimeout,
    http: {
      headersTimeout: Math.min(requestTimeout, 60_000),
      connectionsCheckingInterval: Math.min(Math.max(Math.floor(requestTimeout / 4), 250), 5_000),
    },
  };
}

/** The Fastify instance every server of ours starts from: logging, request ids, proxies, zod, timeouts. */
function createServer(deps: ServiceDeps) {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: deps.config.BODY_MAX_BYTES,
    ...requestTimeouts(deps.config.REQUEST_TIMEOUT_SECONDS),
    // Requests Node refuses itself (malformed, headers too large, too slow) get the error envelope too.
    clientErrorHandler: makeClientErrorHandler(newRequestId),
    // `.xml`/`.json` suffixes, then version-less interface paths as the current version (api/urls.ts).
    rewriteUrl: (req) => withCurrentVersion(rewriteFormatSuffix(req)),
    genReqId: newRequestId,
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
    // X-Forwarded-* are believed only from the proxies TRUST_PROXY names (a hop count or
    // addresses); otherwise any client could choose its own address and host (docs/security.md).
    trustProxy: trustProxyOption(deps.config.TRUST_PROXY),
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
    // Every answer (JSON, XML, HTML, downloads) is read as the type it declares, never sniffed.
    reply.header('x-content-type-options', 'nosniff');
  });
  return app;
}

/**
 * What a worker-only process (RUN_API=false) serves on PORT: /metrics and /health. The worker
 * counts orders placed and refused, vouchers issued and callback attempts, so in the production
 * layout (docs/deployment.md) those are scraped from the workers like everything else.
 */
export async function buildWorkerProbeApp(deps: ServiceDeps): Promise<FastifyInstance> {
  const app = createServer(deps);
  await app.register(errorHandler);
  await app.register(metrics, { token: deps.config.METRICS_TOKEN, deps });
  await app.register(healthRoutes, { deps });
  return app;
}

/** Builds the whole HTTP API around its dependencies; never listens (main/start.ts does). */
export async function buildApp(deps: ServiceDeps): Promise<FastifyInstance> {
  const app = createServer(deps);
  // A span per request, before any route exists (it wraps each handler as it is added); off
  // unless an OTLP endpoint is configured (platform/tracing.ts).
  if (deps.config.OTEL_EXPORTER_OTLP_ENDPOINT) await app.register(tracing);
  app.decorate('publicBaseUrl', deps.config.PUBLIC_BASE_URL);

  await app.register(errorHandler);
  if (deps.config.REQUIRE_HTTPS) await app.register(httpsOnly);
  await app.register(contentNegotiation);
  const interfaces = (['submission', 'distribution'] as const).map((iface) => ({
    prefix: INTERFACE_PREFIX[iface],
    iface,
    routes: iface === 'submission' ? submissionRoutes : distributionRoutes,
    title: `Offer marketplace: ${iface} interface`,
  }));
  // Developer sign-up has its own small document, served only where sign-up is offered.
  const signup = deps.config.DEVELOPER_SIGNUP;
  const documents = signup
    ? [...interfaces, { prefix: DEVELOPER_PREFIX, title: 'Offer marketplace: sandbox developer sign-up' }]
    : interfaces;
  // The sandbox's reference shows the shared demonstration key (never in production: none is shown there).
  const notice =
    deps.config.SERVICE_ENVIRONMENT === 'sandbox'
      ? async (request: FastifyRequest) => {
          const demo = await demoKeyShown(deps, request);
          return demo && demoKeyNotice(demo, signup);
        }
      : undefined;
  await app.register(openapi, { interfaces: documents, notice });
  await app.register(metrics, { token: deps.config.METRICS_TOKEN, deps });
  await app.register(healthRoutes, { deps });
  // The operators' review console: its own login (HTTP Basic: the operators table), no API key.
  await app.register(opsRoutes, { deps, prefix: OPS_PREFIX });
  // Customers' voucher pages (print_url): no API key, the token in the address is the key.
  await app.register(customerVoucherRoutes, { deps });
  // The merchant's counter: advertisers' redemption staff, signed in with a one-time code (docs/merchant-counter.md).
  await app.register(merchantRoutes, { deps });
  // Voucher export files: no API key, the signed link is the key (docs/bulk-offers-and-exports.md).
  await app.register(downloadRoutes, { deps });
  // Developer sign-up (sandbox): no API key, its own tight per-address limit; 404 where it is off.
  await app.register(signup ? developerRoutes : developerSignupOff, { deps });

  // One key cache for both interfaces of this API process (a key is refused on the wrong one anyway).
  const keyCache = createApiKeyCache(deps.config.API_KEY_CACHE_SECONDS);
  for (const { prefix, iface, routes } of interfaces) {
    await app.register(
      async (scope) => {
        await rateLimitPlugin(scope, { perSecond: deps.config.RATE_LIMIT_PER_SECOND, counts: deps.rateLimits });
        await authPlugin(scope, { db: deps.db, iface, environment: deps.config.SERVICE_ENVIRONMENT, cache: keyCache });
        // Idempotency-Key: each client's own keys (docs/decisions/0061-idempotency-keys.md).
        await idempotencyPlugin(scope, { deps, clientOf: (request) => request.client.id });
        await scope.register(categoryRoutes, { deps });
        await scope.register(routes, { deps });
        await scope.register(obsoleteUserRoutes);
      },
      { prefix },
    );
  }
  return app;
}
