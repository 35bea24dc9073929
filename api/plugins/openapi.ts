import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody } from '../../schemas/envelope';
import { TAGS } from '../routes/operation';

type Doc = { paths?: Record<string, Record<string, Operation>>; [k: string]: unknown };
type Operation = {
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, unknown>;
  [k: string]: unknown;
};

const XML_NOTE =
  'Every operation also speaks XML: send `Content-Type: application/xml`, ask with `Accept: application/xml` or a `.xml` path suffix. ' +
  'XML answers have a `<response>` root holding `status` and the resource; bodies have the resource element as root; ' +
  'a list field is a wrapper element holding one element per item named in the singular (`headlines/headline`, `categories/category`).';

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'malformed body',
  '401': 'missing, unknown or wrong-environment API key',
  '403': 'key of the other interface, or feature not enabled',
  '404': "not found (including other clients' resources)",
  '409': 'state conflict or duplicate',
  '413': 'body too large',
  '415': 'unsupported media type',
  '422': 'invalid field (named in `field`)',
  '429': 'rate limited; see Retry-After',
};

/** One interface's document: its paths relative to its base address, with XML and errors documented. */
export function interfaceDocument(full: Doc, prefix: string, title: string): Doc {
  const paths: Doc['paths'] = {};
  const tags = new Set<string>();
  for (const [p, ops] of Object.entries(full.paths ?? {})) {
    if (!p.startsWith(`${prefix}/`)) continue;
    const operations: Record<string, Operation> = {};
    for (const [method, op] of Object.entries(ops)) {
      // The XML form shares the JSON schema, but not its example: a JSON example shown as XML misleads.
      const withXml = <T extends { content?: Record<string, { schema?: unknown }> }>(part: T | undefined): T | undefined =>
        part?.content?.['application/json']
          ? { ...part, content: { ...part.content, 'application/xml': { schema: part.content['application/json'].schema } } }
          : part;
      const responses: Record<string, unknown> = Object.fromEntries(
        Object.entries(op.responses ?? {}).map(([code, r]) => [code, withXml(r as { content?: Record<string, { schema?: unknown }> })]),
      );
      // An operation that needs no key (developer sign-up) has no key to refuse.
      const keyless = Array.isArray(op.security) && op.security.length === 0;
      for (const [code, description] of Object.entries(ERROR_RESPONSES)) {
        if (keyless && code === '401') continue;
        responses[code] ??= {
          description,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/Error' } },
            'application/xml': { schema: { $ref: '#/components/schemas/Error' } },
          },
        };
      }
      operations[method] = { ...op, requestBody: withXml(op.requestBody), responses };
      for (const tag of (op.tags as string[] | undefined) ?? []) tags.add(tag);
    }
    paths[p.slice(prefix.length)] = operations;
  }
  const components = (full.components as Record<string, Record<string, unknown>>) ?? {};
  return {
    ...full,
    info: { ...(full.info as object), title, description: XML_NOTE },
    servers: [{ url: prefix }],
    // The tags the routes declare, listed once so references and generators group by them.
    tags: [...tags].sort().map((name) => ({ name, description: TAGS[name as keyof typeof TAGS] })),
    paths,
    components: {
      ...components,
      schemas: { ...(components.schemas ?? {}), Error: z.toJSONSchema(ErrorBody, { target: 'openapi-3.0', io: 'output' }) },
    },
  };
}

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
