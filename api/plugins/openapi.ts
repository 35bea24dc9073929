import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { notFound } from '../../domain/failures';
import './openapi-components';
import { interfaceDocument, type Doc } from './openapi-document';

/**
 * OpenAPI 3.1 generated from the routes' own zod schemas (no second copy of any schema), served
 * per interface at `<base>/openapi.json`, and a browsable reference at `/docs` that needs no network.
 */
export default fp(async function openapi(
  app: FastifyInstance,
  opts: {
    interfaces: Array<{ prefix: string; title: string }>;
    /** HTML shown above the reference (the sandbox's demonstration key), or undefined for none. */
    notice?: (request: FastifyRequest) => Promise<string | undefined>;
  },
) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Offer marketplace service', version: 'beta' },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-SERVICE-API-KEY' } } },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    // The registered schemas (./openapi-components.ts) as components.schemas, which the routes' $refs name.
    transformObject: jsonSchemaTransformObject,
  });
  const documents = new Map<string, Doc>();
  for (const { prefix, title } of opts.interfaces) {
    // Served as `<base>/openapi.json`: the format-suffix rewrite maps that path here.
    app.get(`${prefix}/openapi`, { schema: { hide: true } }, async () => {
      if (!documents.has(prefix)) documents.set(prefix, interfaceDocument(app.swagger() as Doc, prefix, title));
      return documents.get(prefix);
    });
  }
  await app.register(async (scope) => {
    // Swagger UI also serves app.swagger() at /docs/json and /docs/yaml: every interface in one
    // document, whose operationIds repeat (it is not valid). Only the per-interface documents are served.
    scope.addHook('onRequest', async (request) => {
      if (/^\/docs\/(json|yaml)\/?(\?|$)/.test(request.url))
        throw notFound(`combined document (read ${opts.interfaces.map((i) => `${i.prefix}/openapi.json`).join(', ')})`);
    });
    // Swagger UI's index page is a fixed string; the notice goes in above the element it renders into.
    const notice = opts.notice;
    if (notice)
      scope.addHook('onSend', async (request, reply, payload) => {
        if (typeof payload !== 'string' || !payload.includes(SWAGGER_ROOT)) return payload;
        const shown = await notice(request).catch((err: unknown) => {
          // The reference stays readable without its notice when the database is away.
          request.log.warn({ err }, 'API reference: notice unavailable');
          return undefined;
        });
        if (shown) reply.header('cache-control', 'no-store');
        return shown ? payload.replace(SWAGGER_ROOT, `${shown}${SWAGGER_ROOT}`) : payload;
      });
    await scope.register(swaggerUi, {
      routePrefix: '/docs',
      uiConfig: { urls: opts.interfaces.map(({ prefix, title }) => ({ url: `${prefix}/openapi.json`, name: title })) } as Record<
        string,
        unknown
      >,
    });
  });
});

const SWAGGER_ROOT = '<div id="swagger-ui"></div>';
