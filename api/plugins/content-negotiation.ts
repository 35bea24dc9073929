import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { z } from 'zod';
import { ApiError } from '../errors';
import { coerceXmlToSchema, parseXml, toXml, XmlInputError } from '../xml';

export type Format = 'json' | 'xml';

declare module 'fastify' {
  interface FastifyRequest {
    responseFormat: Format;
    bodyIsXml: boolean;
  }
}

const SUFFIX_FORMAT = Symbol('suffixFormat');
type RawWithFormat = IncomingMessage & { [SUFFIX_FORMAT]?: Format };

/**
 * Strips a `.xml` / `.json` suffix from the last path segment before routing, remembering it:
 * `GET /offers/42.xml` is `GET /offers/42` answered in XML.
 */
export function rewriteFormatSuffix(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const pathPart = q === -1 ? url : url.slice(0, q);
  const m = /\.(xml|json)$/i.exec(pathPart);
  if (!m) return url;
  (req as RawWithFormat)[SUFFIX_FORMAT] = m[1].toLowerCase() as Format;
  return pathPart.slice(0, -m[0].length) + (q === -1 ? '' : url.slice(q));
}

function negotiate(request: FastifyRequest): Format {
  const suffix = (request.raw as RawWithFormat)[SUFFIX_FORMAT];
  if (suffix) return suffix;
  const accept = (request.headers.accept ?? '').toLowerCase();
  const xmlAt = accept.search(/(application|text)\/xml/);
  const jsonAt = accept.indexOf('application/json');
  return xmlAt !== -1 && (jsonAt === -1 || xmlAt < jsonAt) ? 'xml' : 'json';
}

/**
 * JSON and XML handled once, at the edge: XML bodies are parsed safely and shaped by the route's
 * own zod schema; answers are objects that one serializer turns into JSON or XML.
 */
export default fp(async function contentNegotiation(app: FastifyInstance) {
  app.decorateRequest('responseFormat', 'json');
  app.decorateRequest('bodyIsXml', false);

  // Bodies are JSON or XML (multipart only where a route registers it); plain text is refused with 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (request, body, done) => {
    try {
      request.bodyIsXml = true;
      done(null, parseXml(body as string));
    } catch (err) {
      const message = err instanceof XmlInputError ? err.message : 'malformed XML';
      done(new ApiError(400, 'malformed_body', message), undefined);
    }
  });

  app.addHook('onRequest', async (request) => {
    request.responseFormat = negotiate(request);
  });

  app.addHook('preValidation', async (request) => {
    const bodySchema = request.routeOptions.schema?.body as z.ZodType | undefined;
    if (request.bodyIsXml && bodySchema && typeof bodySchema === 'object' && '_zod' in bodySchema) {
      request.body = coerceXmlToSchema(bodySchema, request.body);
    }
  });

  app.addHook('preSerialization', async (request, reply, payload) => {
    if (request.responseFormat !== 'xml') return payload;
    // reply.serializer() bypasses the route's zod serializer, so apply the response schema here.
    const responses = request.routeOptions.schema?.response as Record<string, z.ZodType> | undefined;
    const schema = responses?.[String(reply.statusCode)];
    const shaped = schema && '_zod' in schema ? schema.parse(payload) : payload;
    reply.type('application/xml; charset=utf-8');
    reply.serializer(() => toXml(shaped));
    return shaped;
  });
});
