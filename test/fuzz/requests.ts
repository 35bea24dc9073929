import fc from 'fast-check';
import type * as Faker from 'json-schema-faker' with { 'resolution-mode': 'import' };
import { toXml } from '../../schemas/xml';
import type { Operation, Page, Schema } from './documents';
import {
  BREAKS,
  boundsOf,
  breakBody,
  headerSafe,
  HOSTILE_ACCEPT,
  HOSTILE_CONTENT_TYPES,
  HOSTILE_COOKIES,
  HOSTILE_IDEMPOTENCY_KEYS,
  HOSTILE_IDS,
  hostileText,
  percentEncoded,
} from './hostile';

// json-schema-faker is ESM only; jest compiles it to CommonJS (jest.config.mjs), so it is required here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { generateSync } = require('json-schema-faker') as typeof Faker;

/** One request as sent, enough to replay it by hand. */
export interface FuzzRequest {
  /** The operation or page it exercises, `POST /submission/beta/offers`. */
  target: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** How it was broken, for the report. */
  how: string;
}

/** Real ids made in set-up, by resource (`offer`, `voucher`, …), and the keys of each interface. */
export interface Ids {
  byResource: Map<string, string[]>;
  keys: Record<string, string>;
  /** Signed links, customer and print pages found in set-up answers, sent as they are (and broken). */
  links: string[];
}

/** The resource a path parameter names: `comment_id` → comment; `id` → the segment before it (`offers/{id}` → offer). */
export function resourceOf(path: string, param: string): string {
  if (param.endsWith('_id')) return param.slice(0, -3);
  const segs = path.split('/');
  const i = segs.findIndex((s) => s === `{${param}}` || s === `:${param}` || s.startsWith(`{${param}}.`));
  return (segs[i - 1] ?? param).replace(/(ies)$/, 'y').replace(/s$/, '');
}

/** Values in a body whose field names a resource (`offer_id`, `account_id`) become real ids. */
function withRealIds(v: unknown, ids: Ids, pickIndex: number): unknown {
  if (Array.isArray(v)) return v.map((x) => withRealIds(x, ids, pickIndex));
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => {
      const real = k.endsWith('_id') ? ids.byResource.get(k.slice(0, -3)) : undefined;
      return [k, real?.length && typeof x === 'string' ? real[pickIndex % real.length] : withRealIds(x, ids, pickIndex)];
    }),
  );
}

/** Plausible values per schema: 8 variants each, generated once (generating a whole offer takes tens of milliseconds). */
const VARIANTS = 8;
const plausibleMemo = new Map<unknown, unknown[]>();
function plausibleValue(schema: Schema, seed: number): unknown {
  const variants = plausibleMemo.get(schema) ?? [];
  plausibleMemo.set(schema, variants);
  const i = seed % VARIANTS;
  if (!(i in variants)) variants[i] = generateSync(schema as never, { seed: i + 1, maxItems: 3, maxLength: 40, optionalsProbability: 0.8 });
  return structuredClone(variants[i]);
}

/** Generates every operation's variants ahead, so that generating never holds the event loop while the lane measures it. */
export function warmUp(ops: Operation[]): void {
  for (const op of ops)
    for (const schema of [...Object.values(op.bodies), ...op.params.map((p) => p.schema)])
      for (let i = 0; i < VARIANTS; i++) plausibleValue(schema, i);
}

const encode = percentEncoded;

/** The body as XML, its root named after the resource as the API reads it (`{offer: …}` → `<offer>`). */
function asXml(body: unknown): string {
  try {
    return rootedXml(body);
  } catch {
    // Nesting past what the XML builder writes: written by hand, for the parser's own limit to refuse.
    return `<offer>${'<a>'.repeat(20_000)}1${'</a>'.repeat(20_000)}</offer>`;
  }
}

function rootedXml(body: unknown): string {
  if (body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 1) {
    const [[root, inner]] = Object.entries(body);
    return toXml(inner, root);
  }
  return toXml(body, 'request');
}

/** `arb` one time in `n`, else null: most requests keep the header or part a client normally sends. */
const oneIn = <T>(n: number, arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

/** The shape of one request's random choices, all drawn from one seed. */
const choices = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  pick: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  how: fc.constantFrom(...BREAKS),
  xml: fc.boolean(),
  realIds: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  hostileId: fc.constantFrom(...HOSTILE_IDS),
  queryHostile: fc.boolean(),
  queryText: hostileText,
  extraQuery: oneIn(4, fc.tuple(fc.constantFrom('per_page', 'page', 'after', 'unknown', 'status', '__proto__'), hostileText)),
  accept: oneIn(3, fc.constantFrom(...HOSTILE_ACCEPT)),
  contentType: oneIn(6, fc.constantFrom(...HOSTILE_CONTENT_TYPES)),
  idempotencyKey: oneIn(2, fc.oneof(fc.constantFrom(...HOSTILE_IDEMPOTENCY_KEYS), fc.constant('repeat'), fc.uuid())),
  cookie: oneIn(4, fc.constantFrom(...HOSTILE_COOKIES)),
  keyOf: oneIn(8, fc.constantFrom('submission', 'distribution', 'developer', 'none', 'bogus')),
  formFields: fc.dictionary(fc.constantFrom('code', 'csrf', 'attempt', 'amount', 'redemption_id', 'email', 'name', 'reason'), hostileText, {
    maxKeys: 4,
  }),
});
type Choices = (typeof choices extends fc.Arbitrary<infer T> ? T : never) & { index: number };

/** Request `index` of a run with seed `seed`: the same pair always makes the same request. */
export function choicesFor(seed: number, index: number): Choices {
  return { ...fc.sample(choices, { seed: seed + index, numRuns: 1 })[0], index };
}

/** A documented operation's request: a plausible one from its schemas, then broken one way. */
export function operationRequest(op: Operation, ids: Ids, c: Choices, repeatKey: string): FuzzRequest {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const real = ids.byResource.get(resourceOf(op.path, name));
    return c.realIds && real?.length ? encode(real[c.index % real.length]) : c.hostileId;
  });
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of op.params.filter((x) => x.in !== 'path')) {
    if (!p.required && c.pick < 0.4) continue;
    const plausible = plausibleValue(p.schema, c.seed);
    const value = c.queryHostile && c.pick > 0.5 ? c.queryText : Array.isArray(plausible) ? plausible.join(',') : String(plausible);
    if (p.in === 'header') headers[p.name.toLowerCase()] = headerSafe(value);
    else query.set(p.name, value);
  }
  if (c.extraQuery) query.append(c.extraQuery[0], c.extraQuery[1]);
  const key = c.keyOf === 'bogus' ? 'key_bogus' : c.keyOf === 'none' ? undefined : ids.keys[c.keyOf ?? op.document];
  if (key) headers['x-service-api-key'] = key;
  let body: string | undefined;
  let how = 'no body';
  const types = Object.keys(op.bodies);
  if (types.length) {
    const type = types.find((t) => t.includes(c.xml ? 'xml' : 'json')) ?? types[0];
    const schema = op.bodies[type] as Schema;
    const plausible = withRealIds(plausibleValue(schema, c.seed), ids, c.index);
    const broken = breakBody(plausible as never, c.how, c.pick, boundsOf(schema));
    if (type.includes('xml')) body = asXml(broken);
    else if (type.includes('ndjson')) body = `${JSON.stringify(broken)}\n${JSON.stringify(plausible)}\n`;
    else body = JSON.stringify(broken);
    headers['content-type'] = c.contentType ?? type;
    how = `${c.how} ${type}`;
  } else if (op.method !== 'GET' && c.contentType) {
    headers['content-type'] = c.contentType;
    body = c.queryText;
  }
  if (c.accept) headers.accept = headerSafe(c.accept);
  if (c.cookie) headers.cookie = c.cookie;
  if (headers['idempotency-key'] !== undefined || c.idempotencyKey)
    headers['idempotency-key'] = headerSafe(c.idempotencyKey === 'repeat' ? repeatKey : (c.idempotencyKey ?? `fuzz-${c.seed}-${c.index}`));
  const qs = query.toString();
  return { target: `${op.method} ${op.path}`, method: op.method, path: qs ? `${path}?${qs}` : path, headers, body, how };
}

/** A page or link outside the documents: its path filled with real or hostile ids, a hostile form and cookie. */
export function pageRequest(page: Page, ids: Ids, c: Choices): FuzzRequest {
  const link = ids.links.length && c.pick < 0.3 ? ids.links[c.index % ids.links.length] : undefined;
  let path = page.path
    .replace(/:(\w+)/g, (_, name: string) => {
      const real = ids.byResource.get(resourceOf(page.path, name));
      return c.realIds && real?.length ? encode(real[c.index % real.length]) : c.hostileId;
    })
    .replace(/\*$/, c.hostileId);
  if (link) path = c.queryHostile ? link.replace(/([?&][^=]+=)[^&]*/, `$1${encode(c.queryText)}`) : link;
  const headers: Record<string, string> = {};
  if (c.cookie) headers.cookie = c.cookie;
  if (c.accept) headers.accept = headerSafe(c.accept);
  if (c.pick < 0.5) headers.origin = 'http://localhost:80';
  // The console's pages past its gate most of the time (its operator's credentials), else refused.
  if (page.path.startsWith('/ops') && c.pick > 0.3) headers.authorization = ids.keys.ops;
  let body: string | undefined;
  if (page.method !== 'GET') {
    headers['content-type'] = c.contentType ?? 'application/x-www-form-urlencoded';
    body = new URLSearchParams(c.formFields).toString();
  } else if (c.extraQuery) path += `${path.includes('?') ? '&' : '?'}${c.extraQuery[0]}=${encode(c.extraQuery[1])}`;
  return { target: `${page.method} ${page.path}`, method: page.method, path, headers, body, how: link ? 'signed link' : 'page' };
}
