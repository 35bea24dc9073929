import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import Negotiator from 'negotiator';
import type { z } from 'zod';
import { ApiError, type ErrorDetail } from '../errors';
import { checkFields } from '../../schemas/unknown-fields';
import { coerceXmlToSchema, parseXml, RepeatedXmlElement, toXml, XmlInputError } from '../../schemas/xml';

export type Format = 'json' | 'xml';

declare module 'fastify' {
  interface FastifyRequest {
    responseFormat: Format;
    bodyIsXml: boolean;
  }
  interface FastifyContextConfig {
    /** The route's body is an uploaded file (multipart), not a resource: it has no body schema, yet takes a body. */
    bodyIsFile?: boolean;
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

/** The types the service answers in, JSON first: it wins a tie (any type, any application type) and answers when nothing is acceptable. */
const ANSWERED: ReadonlyArray<[string, Format]> = [
  ['application/json', 'json'],
  ['application/xml', 'xml'],
  ['text/xml', 'xml'],
];
const ANSWERED_TYPES = ANSWERED.map(([type]) => type);

/**
 * The answer's format: a `.xml`/`.json` suffix wins; else the `Accept` header, read by negotiator
 * (q-values, wildcards, specificity, then the client's order); else JSON. An `Accept` naming
 * neither format is not refused (no 406): it gets JSON, as a request without one does.
 */
export function answerFormat(accept: string | undefined, suffix?: Format): Format {
  if (suffix) return suffix;
  const chosen = new Negotiator({ headers: { accept } }).mediaType(ANSWERED_TYPES);
  return ANSWERED.find(([type]) => type === chosen)?.[1] ?? 'json';
}

/** A request's media type without its parameters, lower-cased (RFC 9110 §8.3.1: `TEXT/CSV` is `text/csv`); '' when it has none. */
export function mediaTypeOf(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** Deepest nesting accepted in a JSON body, as for XML; real resources need under ten. */
const MAX_JSON_DEPTH = 32;

/** Text Postgres cannot store: a NUL character, or a lone UTF-16 surrogate (`"\ud800"` is valid JSON, but no UTF-8). */
const unstorableText = (s: string) => s.includes('\u0000') || /\p{Cs}/u.test(s);

/**
 * Walks a parsed body or query without recursion (a hostile body may nest 100,000 deep): fails on
 * nesting past MAX_JSON_DEPTH, and returns the path of the first string Postgres cannot store.
 */
function findNul(root: unknown): string | undefined {
  const stack: Array<[unknown, string, number]> = [[root, '', 0]];
  while (stack.length) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (unstorableText(value)) return path;
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) throw new ApiError(400, 'malformed_body', `body nested deeper than ${MAX_JSON_DEPTH} levels`);
    for (const [k, v] of Object.entries(value)) {
      if (unstorableText(k)) return path;
      stack.push([v, Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k, depth + 1]);
    }
  }
  return undefined;
}

/** A body's field named inside the resource, as validation errors name fields: `title`, not `offer.title`. */
const inResource = (path: string) => path.replace(/^[^.[]+\./, '');

/** Postgres text cannot hold NUL or lone surrogates; refuse them here, naming the field, for bodies and queries alike. */
function refuseNulIn(part: unknown, inBody: boolean): void {
  const found = findNul(part);
  const field = inBody && found !== undefined ? inResource(found) : found;
  if (field !== undefined)
    throw new ApiError(
      422,
      'invalid_field',
      `${field || 'value'}: must not contain NUL characters or lone surrogates (text must be valid Unicode)`,
      field ? { field } : {},
    );
}

/**
 * The keys a JSON body may not use: `__proto__` (and `constructor.prototype`) would reach an
 * object's prototype if any code copied the body naively. Fastify's own parser refuses them too,
 * but as "not valid JSON"; this says which key.
 */
function forbiddenKey(root: unknown): string | undefined {
  const stack: unknown[] = [root];
  while (stack.length) {
    const value = stack.pop();
    if (!value || typeof value !== 'object') continue;
    if (Object.hasOwn(value, '__proto__')) return '__proto__';
    const ctor = (value as Record<string, unknown>).constructor;
    if (Object.hasOwn(value, 'constructor') && ctor && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype'))
      return 'constructor.prototype';
    for (const v of Object.values(value)) stack.push(v); // not push(...): a long list would overflow the call
  }
  return undefined;
}

/** A JSON body: JSON.parse (own properties only, never a prototype), refusing the keys above by name. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new ApiError(400, 'malformed_body', 'the body is empty, but Content-Type says JSON');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, 'malformed_body', `malformed JSON: ${(err as Error).message}`);
  }
  const key = forbiddenKey(value);
  if (key) throw new ApiError(400, 'malformed_body', `JSON key ${key} is not allowed`);
  return value;
}

/** A field the resource does not have (`titel`, named inside the resource). */
function unknownField(path: string): ErrorDetail {
  const field = inResource(path);
  return { code: 'unknown_field', message: `${field}: unknown field; the resource has no field of that name`, field };
}

/**
 * The body made ready for the route's zod schema: an XML body shaped by it; unknown fields a 422
 * naming each; fields the answer shows but no client sets dropped. Resources only (routes that
 * answer with one); the review console's HTML forms are not checked.
 */
function shapeBody(request: FastifyRequest): void {
  const bodySchema = request.routeOptions.schema?.body as z.ZodType | undefined;
  if (!(bodySchema && typeof bodySchema === 'object' && '_zod' in bodySchema)) return;
  if (request.bodyIsXml) {
    try {
      request.body = coerceXmlToSchema(bodySchema, request.body);
    } catch (err) {
      if (!(err instanceof RepeatedXmlElement)) throw err;
      const field = inResource(err.path);
      throw new ApiError(422, 'invalid_field', `${field}: ${err.message}`, { field });
    }
  }
  // The success answer's schema, whatever its status (200, or 201 for a roll that creates a key).
  const answers = (request.routeOptions.schema?.response ?? {}) as Record<string, z.ZodType>;
  const shown = Object.entries(answers).find(([status]) => /^2\d\d$/.test(status))?.[1];
  if (!shown) return;
  const { unknown, cleaned } = checkFields(bodySchema, shown, request.body);
  if (unknown.length) throw ApiError.withDetails(422, unknown.map(unknownField));
  request.body = cleaned;
}

/**
 * A JSON text taken as a route's body is, before its zod validation: parsed (400 malformed_body),
 * text Postgres cannot store and unknown fields refused (422), read-only fields dropped. For an
 * offer import's lines, each checked as POST /offers checks its body.
 */
export function jsonAsBody(text: string, body: z.ZodType, shown: z.ZodType): unknown {
  const value = parseJsonBody(text);
  refuseNulIn(value, true);
  const { unknown, cleaned } = checkFields(body, shown, value);
  if (unknown.length) throw ApiError.withDetails(422, unknown.map(unknownField));
  return cleaned;
}

/** The request says it has no body: neither Content-Length (or 0) nor Transfer-Encoding (RFC 9112 §6.3). */
function emptyByFraming(request: FastifyRequest): boolean {
  const { 'content-length': length, 'transfer-encoding': encoding } = request.headers;
  return encoding === undefined && (length === undefined || length === '0');
}

/** A route that reads no body: no body schema, and no file upload. */
const takesNoBody = (request: FastifyRequest) => !request.routeOptions.schema?.body && !request.routeOptions.config.bodyIsFile;

/**
 * JSON and XML handled once, at the edge: XML bodies are parsed safely and shaped by the route's
 * own zod schema; answers are objects that one serializer turns into JSON or XML.
 */
export default fp(async function contentNegotiation(app: FastifyInstance) {
  app.decorateRequest('responseFormat', 'json');
  app.decorateRequest('bodyIsXml', false);

  // Bodies are JSON or XML (multipart only where a route registers it); plain text is refused with 415.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, async (_request: FastifyRequest, body: string) =>
    parseJsonBody(body),
  );
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, async (request: FastifyRequest, body: string) => {
    request.bodyIsXml = true;
    try {
      return parseXml(body);
    } catch (err) {
      throw new ApiError(400, 'malformed_body', err instanceof XmlInputError ? err.message : 'malformed XML');
    }
  });

  // Client libraries label even an empty DELETE `Content-Type: application/json`. With no body to
  // read the label describes nothing, so on a route that reads none it is dropped before parsing:
  // any type, even one no parser knows, is fine there. Routes that take a body parse it as before.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.headers['content-type'] !== undefined && emptyByFraming(request) && takesNoBody(request))
      delete request.raw.headers['content-type'];
    return payload;
  });

  app.addHook('onRequest', async (request) => {
    request.responseFormat = answerFormat(request.headers.accept, (request.raw as RawWithFormat)[SUFFIX_FORMAT]);
  });

  app.addHook('preValidation', async (request) => {
    refuseNulIn(request.body, true);
    refuseNulIn(request.query, false);
    shapeBody(request);
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
