import { TAGS } from '../routes/operation';

/*
 * One interface's OpenAPI document, cut from the whole API's (@fastify/swagger builds one for every
 * route; its components.schemas hold every named schema, ./openapi-components.ts). What repeats is
 * named once and referred to: schemas (named by their zod registry ids), the error answers, the
 * plain answers, and the parameters several operations take alike.
 */

export type Doc = { paths?: Record<string, Record<string, Operation>>; [k: string]: unknown };
type Operation = {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, unknown>;
  parameters?: Parameter[];
  [k: string]: unknown;
};
type Response = { description?: string; content?: Record<string, { schema?: unknown }> };
type Parameter = { name?: string; in?: string; [k: string]: unknown };
type Section = 'schemas' | 'responses' | 'parameters';
type Components = Record<Section, Record<string, unknown>>;

const XML_NOTE =
  'Every operation also speaks XML: send `Content-Type: application/xml`, ask with `Accept: application/xml` or a `.xml` path suffix. ' +
  'XML answers have a `<response>` root holding `status` and the resource; bodies have the resource element as root; ' +
  'a list field is a wrapper element holding one element per item named in the singular (`headlines/headline`, `categories/category`).';

/** The error answers every operation may give, each a named response the operations refer to. */
const ERROR_RESPONSES: Record<string, { name: string; description: string }> = {
  '400': { name: 'BadRequest', description: 'malformed body' },
  '401': { name: 'Unauthorized', description: 'missing, unknown or wrong-environment API key' },
  '403': { name: 'Forbidden', description: 'key of the other interface, or feature not enabled' },
  '404': { name: 'NotFound', description: "not found (including other clients' resources)" },
  '409': { name: 'Conflict', description: 'state conflict or duplicate' },
  '413': { name: 'PayloadTooLarge', description: 'body too large' },
  '415': { name: 'UnsupportedMediaType', description: 'unsupported media type' },
  '422': { name: 'UnprocessableEntity', description: 'invalid field (named in `field`)' },
  '429': { name: 'TooManyRequests', description: 'rate limited; see Retry-After' },
};

/**
 * The Idempotency-Key header every operation that changes something takes (api/plugins/idempotency.ts);
 * spelled alike on each, so it becomes one named parameter (`sharedParameters`).
 */
const IDEMPOTENCY_KEY: Parameter = {
  in: 'header',
  name: 'Idempotency-Key',
  required: false,
  description:
    'Makes the request safe to retry: the first complete answer is replayed for 24 hours (header `Idempotent-Replayed: true`); ' +
    'the same key with another request is 422 `idempotency_key_reused`, while the first still runs 409 `idempotency_key_in_progress`. ' +
    'Keys are per client.',
  schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
};
const CHANGES = new Set(['post', 'put', 'patch', 'delete']);

const errorResponse = (description: string): Response => ({
  description,
  content: {
    'application/json': { schema: { $ref: '#/components/schemas/Error' } },
    'application/xml': { schema: { $ref: '#/components/schemas/Error' } },
  },
});

/** The XML form shares the JSON schema, but not its example: a JSON example shown as XML misleads. */
function withXml<T extends Response>(part: T | undefined): T | undefined {
  return part?.content?.['application/json']
    ? { ...part, content: { ...part.content, 'application/xml': { schema: part.content['application/json'].schema } } }
    : part;
}

/**
 * The swagger plugin marks every body required; one whose schema takes null (zod's `.nullish()`,
 * the key roll's) may be left out, and the route then runs on its defaults.
 */
function bodyRequired(body: Operation['requestBody']): Operation['requestBody'] {
  const schema = body?.content?.['application/json']?.schema as { anyOf?: { type?: unknown }[] } | undefined;
  return schema?.anyOf?.some((s) => s.type === 'null') ? { ...body, required: false } : body;
}

/** One interface's document: its paths relative to its base address, with XML and errors documented. */
export function interfaceDocument(full: Doc, prefix: string, title: string): Doc {
  const paths: NonNullable<Doc['paths']> = {};
  const tags = new Set<string>();
  const answers: Record<string, Response> = {};
  for (const [p, ops] of Object.entries(full.paths ?? {})) {
    if (!p.startsWith(`${prefix}/`)) continue;
    const operations: Record<string, Operation> = {};
    for (const [method, op] of Object.entries(ops)) {
      const responses: Record<string, unknown> = Object.fromEntries(
        Object.entries(op.responses ?? {}).map(([code, r]) => [code, named(withXml(r as Response)!, answers)]),
      );
      // An operation that needs no key (developer sign-up) has no key to refuse.
      const keyless = Array.isArray(op.security) && op.security.length === 0;
      for (const [code, { name }] of Object.entries(ERROR_RESPONSES)) {
        if (keyless && code === '401') continue;
        responses[code] ??= { $ref: `#/components/responses/${name}` };
      }
      // Sign-up (keyless) refuses the header: its answer holds keys that are never stored.
      const parameters = CHANGES.has(method) && !keyless ? [...(op.parameters ?? []), IDEMPOTENCY_KEY] : op.parameters;
      operations[method] = { ...op, ...(parameters && { parameters }), requestBody: withXml(bodyRequired(op.requestBody)), responses };
      for (const tag of (op.tags as string[] | undefined) ?? []) tags.add(tag);
    }
    paths[p.slice(prefix.length)] = operations;
  }
  const components = (full.components as Record<string, Record<string, unknown>>) ?? {};
  const all: Components = {
    schemas: components.schemas ?? {},
    responses: {
      ...answers,
      ...Object.fromEntries(Object.values(ERROR_RESPONSES).map(({ name, description }) => [name, errorResponse(description)])),
    },
    parameters: sharedParameters(paths),
  };
  return {
    ...full,
    info: { ...(full.info as object), title, description: XML_NOTE },
    servers: [{ url: prefix }],
    // The tags the routes declare, listed once so references and generators group by them.
    tags: [...tags].sort().map((name) => ({ name, description: TAGS[name as keyof typeof TAGS] })),
    paths,
    // The named parts are built once for all three documents: each keeps those its paths use.
    components: { ...components, ...used(paths, all) },
  };
}

/**
 * A plain answer (the swagger plugin's "Default Response") whose every body, JSON and XML, is one
 * named schema is itself a named response, `answers[<schema>]`; the operation refers to it.
 */
function named(response: Response, answers: Record<string, Response>): Response | { $ref: string } {
  const refs = new Set(Object.values(response.content ?? {}).map(({ schema }) => (schema as { $ref?: unknown } | undefined)?.$ref));
  const [ref] = refs;
  const schema = refs.size === 1 && typeof ref === 'string' ? /^#\/components\/schemas\/(\w+)$/.exec(ref)?.[1] : undefined;
  if (!schema || response.description !== 'Default Response') return response;
  answers[schema] = response;
  return { $ref: `#/components/responses/${schema}` };
}

/**
 * A parameter that more than one operation takes exactly alike (`page`, `per_page`, a path's `id`)
 * becomes a named parameter the operations refer to; a name that means different things in
 * different operations (`status`) stays spelled out in each. Rewrites `paths` in place.
 */
function sharedParameters(paths: NonNullable<Doc['paths']>): Record<string, unknown> {
  const ops = Object.values(paths).flatMap((o) => Object.values(o));
  const forms = new Map<string, Map<string, number>>();
  for (const p of ops.flatMap((op) => op.parameters ?? [])) {
    const name = String(p.name);
    const byForm = forms.get(name) ?? forms.set(name, new Map()).get(name)!;
    byForm.set(JSON.stringify(p), (byForm.get(JSON.stringify(p)) ?? 0) + 1);
  }
  const shared: Record<string, unknown> = {};
  for (const [name, byForm] of forms) {
    const [[form, uses]] = [...byForm];
    if (byForm.size === 1 && uses! > 1) shared[name] = JSON.parse(form!);
  }
  for (const op of ops) {
    op.parameters &&= op.parameters.map((p) => (String(p.name) in shared ? { $ref: `#/components/parameters/${p.name}` } : p));
  }
  return shared;
}

/** The parts of `all` that `root` refers to, directly or through other parts, each section sorted by name. */
function used(root: unknown, all: Components): Components {
  const found: Components = { schemas: {}, responses: {}, parameters: {} };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const ref = key === '$ref' && typeof value === 'string' ? /^#\/components\/(schemas|responses|parameters)\/(.+)$/.exec(value) : null;
      if (!ref) {
        visit(value);
        continue;
      }
      const [section, name] = [ref[1] as Section, ref[2]!];
      if (name in found[section]) continue;
      found[section][name] = all[section][name];
      visit(all[section][name]);
    }
  };
  visit(root);
  const sorted = (parts: Record<string, unknown>) => Object.fromEntries(Object.entries(parts).sort(([a], [b]) => (a < b ? -1 : 1)));
  // A document without a shared parameter (developer sign-up) has no empty section.
  const kept = Object.entries(found).filter(([, parts]) => Object.keys(parts).length > 0);
  return Object.fromEntries(kept.map(([section, parts]) => [section, sorted(parts)])) as Components;
}
