import fc from 'fast-check';

/*
 * The hostile values the fuzz lane sends, and the ways it breaks a plausible body: one way at a
 * time, so that a failure names what broke it.
 */

/** Strings no field should choke on: control and invisible characters, injections, odd encodings. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\u202Egnp.exe',
  '\u2066bidi\u2069',
  'a\u200Bb\uFEFF',
  '😀🎉👩‍👩‍👧',
  "' OR 1=1 --",
  '"; DROP TABLE offers; --',
  '<script>alert(1)</script>',
  ']]><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
  '=HYPERLINK("http://evil.example")',
  '../../etc/passwd',
  '%00',
  '%E0%A4%A',
  '\\u0000',
  'NaN',
  'Infinity',
  'null',
  'true',
  '[]',
  '{}',
  '-0',
  '1e309',
  '9'.repeat(40),
  'x'.repeat(10_000),
];

/** Numbers at and past the bounds of common columns and of JavaScript itself. */
export const EDGE_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  -0.5,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1e308,
  -1e308,
  5e-324,
];

/** Dates that do not exist, or only just do. */
export const IMPOSSIBLE_DATES = [
  '2026-02-30',
  '2026-02-29',
  '2024-02-29',
  '2026-13-01',
  '2026-00-10',
  '0000-01-01',
  '9999-12-31',
  '10000-01-01',
  '2026-06-31T25:61:61Z',
  '2026-06-01T00:00:00+99:99',
  '1969-12-31T23:59:60Z',
  '20260601',
];

/** Path ids: real ones mostly (so lookups pass), otherwise ids no lookup should trip on. */
export const HOSTILE_IDS = [
  'x',
  '0',
  '-1',
  'ofr_',
  'ofr_00000000000000000000000000',
  '%00',
  '%2e%2e%2f%2e%2e',
  '%25',
  '%E0%A4%A',
  '%F0%9F%98%80',
  'a%20b',
  "'%20OR%201=1",
  'x'.repeat(199),
  'x'.repeat(201),
  '9'.repeat(30),
];

export const HOSTILE_ACCEPT = [
  '*/*',
  'application/xml',
  'application/json',
  'text/csv',
  'text/html',
  'application/xml;q=0, application/json;q=0',
  'application/json;q=abc',
  'application/*;q=1.5',
  'image/png',
  ',,,;;;',
  'a/'.repeat(500),
];

export const HOSTILE_CONTENT_TYPES = [
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/xml',
  'text/xml; charset=utf-8',
  'text/plain',
  'text/csv',
  'TEXT/CSV',
  'application/x-ndjson',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  ';;;',
  'application/json; boundary="',
];

export const HOSTILE_IDEMPOTENCY_KEYS = ['', ' ', 'x'.repeat(256), 'x'.repeat(5000), 'ÿÿÿ', 'a\tb', '../../k', '%00'];

export const HOSTILE_COOKIES = [
  'merchant_session=%',
  'merchant_session=%E0%A4%A',
  'merchant_session=',
  `merchant_session=${'x'.repeat(4000)}`,
  'merchant_session="unterminated',
  'merchant_session=a; merchant_session=b',
  'ops_session=%; csrf=%',
  '=; ; ;=;',
  'a=b; '.repeat(300),
  '__proto__=1; constructor=2',
];

/** Keeps a header value sendable (Node refuses CR, LF and characters past Latin-1 in headers). */
export const headerSafe = (v: string) => (/^[\t\x20-\x7e\x80-\xff]*$/.test(v) ? v : percentEncoded(v));

const LONE_SURROGATE = /([\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF])/;
/** Percent-encoded; a lone surrogate (which encodeURIComponent refuses) goes as the bytes UTF-8 would give it, which no decoder accepts. */
export const percentEncoded = (v: unknown) =>
  String(v)
    .split(LONE_SURROGATE)
    .map((part, i) => (i % 2 ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every place in a value: its path of keys and indices. */
function places(v: Json, at: Array<string | number> = []): Array<Array<string | number>> {
  const here = [at];
  if (Array.isArray(v)) return [...here, ...v.flatMap((x, i) => places(x, [...at, i]))];
  if (v && typeof v === 'object') return [...here, ...Object.entries(v).flatMap(([k, x]) => places(x, [...at, k]))];
  return here;
}

const isObject = (v: unknown): v is Record<string, Json> => !!v && typeof v === 'object' && !Array.isArray(v);

function getAt(v: Json, at: Array<string | number>): Json {
  return at.reduce<Json>((x, k) => (x as Record<string | number, Json>)?.[k], v);
}

function setAt(v: Json, at: Array<string | number>, to: Json | undefined): Json {
  if (at.length === 0) return to === undefined ? {} : to;
  const copy = (Array.isArray(v) ? [...v] : { ...(v as object) }) as Record<string | number, Json>;
  const [head, ...rest] = at;
  if (rest.length === 0 && to === undefined) delete copy[head];
  // defineProperty, so that a `__proto__` key is an own field that JSON carries, not the prototype.
  else Object.defineProperty(copy, head, { value: setAt(copy[head], rest, to), enumerable: true, writable: true, configurable: true });
  return copy as Json;
}

function deeplyNested(depth: number): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** Every number a schema names as a bound, with its neighbours: the values just inside and just past it. */
export function boundsOf(schema: unknown, found = new Set<number>()): number[] {
  if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (typeof v === 'number' && /^(minimum|maximum|exclusiveMinimum|exclusiveMaximum|minLength|maxLength|minItems|maxItems)$/.test(k))
        for (const n of [v - 1, v, v + 1]) found.add(n);
      else boundsOf(v, found);
    }
  }
  return [...found];
}

/** The ways to break a body, one at a time; `plausible` leaves it as generated. */
export const BREAKS = [
  'plausible',
  'wrong-type',
  'missing-field',
  'unknown-field',
  'deep-nesting',
  'huge-string',
  'huge-array',
  'nasty-string',
  'edge-number',
  'impossible-date',
  'not-an-object',
] as const;
export type Break = (typeof BREAKS)[number];

/** The body broken one way, at a place chosen by `pick` (a fraction in [0, 1)). */
export function breakBody(body: Json, how: Break, pick: number, bounds: number[]): Json {
  const all = places(body);
  const at = all[Math.floor(pick * all.length)] ?? [];
  const choose = <T>(xs: readonly T[]) => xs[Math.floor(pick * 7919) % xs.length];
  const leaves = all.filter((p) => p.length > 0);
  const leaf = leaves[Math.floor(pick * leaves.length)] ?? at;
  switch (how) {
    case 'plausible':
      return body;
    case 'wrong-type':
      return setAt(body, leaf, choose<Json>([null, true, 42, 'text', [], {}, [1, 'a'], { x: 1 }]));
    case 'missing-field':
      return leaf.length ? setAt(body, leaf, undefined) : body;
    case 'unknown-field': {
      const objects = all.filter((p) => isObject(getAt(body, p)));
      const o = objects[Math.floor(pick * objects.length)];
      return o ? setAt(body, [...o, choose(['unknown_field', '__proto__', 'constructor', 'id', 'status'])], 1) : body;
    }
    case 'deep-nesting':
      return setAt(body, leaf, deeplyNested(choose([64, 1000, 20_000])));
    case 'huge-string':
      return setAt(body, leaf, 'é'.repeat(choose([10_000, 100_000, 600_000])));
    case 'huge-array':
      return setAt(
        body,
        leaf,
        Array.from({ length: choose([1000, 20_000, 150_000]) }, (_, i) => i),
      );
    case 'nasty-string':
      return setAt(body, leaf, choose(NASTY_STRINGS));
    case 'edge-number':
      return setAt(body, leaf, choose([...EDGE_NUMBERS, ...bounds]));
    case 'impossible-date':
      return setAt(body, leaf, choose(IMPOSSIBLE_DATES));
    case 'not-an-object':
      return choose([null, [], 'offer', 0, [body]]);
  }
}

/** A hostile value for a query parameter or a path segment, as text. */
export const hostileText = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS, ...IMPOSSIBLE_DATES, ...EDGE_NUMBERS.map(String)),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
);
