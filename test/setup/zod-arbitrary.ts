import fc from 'fast-check';
import type { z } from 'zod';

/*
 * fast-check arbitraries read off zod v4 schemas: the bounds a generated value keeps to are the
 * schema's own (lengths, minimum and maximum, enums, patterns), so a schema that lets through more
 * than its column stores makes the property tests fail. Only what request schemas use is handled.
 */

type Def = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, string>;
  values?: unknown[];
  checks?: Array<{ _zod: { def: CheckDef } }>;
  format?: string;
};
type CheckDef = { check: string; minimum?: number; maximum?: number; format?: string; pattern?: RegExp; value?: number };

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** A replacement for the schema at a path (`advertiser.categories[].id`), or for a schema object wherever it appears. */
export type Overrides = { paths?: Record<string, fc.Arbitrary<unknown>>; schemas?: Map<z.ZodType, fc.Arbitrary<unknown>> };

/** Longest list generated: lists are bounded by their schema, but long ones only slow the run. */
const MAX_ITEMS = 3;

/** One UTF-16 code unit of text: mostly ASCII, some of the rest of the BMP (never NUL or a surrogate). */
const codeUnit = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x01, max: 0x1f }) },
  { weight: 3, arbitrary: fc.integer({ min: 0x80, max: 0xd7ff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0xfffd }) },
);
const astral = fc.constantFrom('😀', '𝔘', '🇺🇸', '👩‍👩‍👧');

/** Text of exactly `n` UTF-16 code units (what zod's min/max count), whole characters only. */
const textOfLength = (n: number) =>
  fc.tuple(fc.array(codeUnit, { minLength: n, maxLength: n }), fc.array(astral, { maxLength: 2 })).map(([units, extras]) => {
    let s = extras.join('') + String.fromCharCode(...units);
    s = s.slice(0, n);
    // A cut through a surrogate pair leaves half a character: end on a whole one.
    if (/[\uD800-\uDBFF]$/.test(s)) s = `${s.slice(0, -1)}x`;
    return s;
  });

function stringArb(def: Def): fc.Arbitrary<string> {
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const min = Math.max(0, ...checks.filter((c) => c.check === 'min_length').map((c) => c.minimum!));
  const max = Math.min(100_000, ...checks.filter((c) => c.check === 'max_length').map((c) => c.maximum!));
  const fits = (s: string) => s.length >= min && s.length <= max;
  const format = def.format ?? checks.find((c) => c.check === 'string_format')?.format;
  if (format === 'url') return fc.webUrl({ validSchemes: ['http', 'https'], size: 'small' }).filter(fits);
  // fc.emailAddress() allows local parts (`!#$%`) zod's stricter pattern refuses; build ones both accept.
  if (format === 'email')
    return fc
      .tuple(fc.stringMatching(/^[A-Za-z0-9_+-]{1,64}$/), fc.domain({ size: 'small' }))
      .map(([local, domain]) => `${local}@${domain}`)
      .filter(fits);
  const anchored = checks.find((c) => c.format === 'regex' && c.pattern?.source.startsWith('^'));
  if (anchored) return fc.stringMatching(anchored.pattern!).filter(fits);
  // The bounds themselves, where a drift from the column shows, and short text between.
  const length = fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max: Math.min(max, min + 20) }));
  return length.chain(textOfLength);
}

function numberArb(schema: z.ZodType): fc.Arbitrary<number> {
  const n = schema as unknown as { minValue: number | null; maxValue: number | null; isInt: boolean };
  const min = n.minValue ?? -Number.MAX_SAFE_INTEGER;
  const max = n.maxValue ?? Number.MAX_SAFE_INTEGER;
  if (n.isInt)
    return fc.oneof(
      fc.constantFrom(min, max),
      fc.maxSafeInteger().map((i) => min + (Math.abs(i) % (max - min + 1))),
    );
  return fc.oneof(fc.constantFrom(min, max), fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
}

/** An arbitrary of the values `schema` accepts (most of them: refinements are the caller's to meet). */
export function arbitraryOf(schema: z.ZodType, overrides: Overrides = {}, path = ''): fc.Arbitrary<unknown> {
  if (overrides.paths && path in overrides.paths) return overrides.paths[path];
  const replaced = overrides.schemas?.get(schema);
  if (replaced) return replaced;
  const def = defOf(schema);
  const inner = (s: z.ZodType, p = path) => arbitraryOf(s, overrides, p);
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'prefault':
      // Absent now and then: undefined leaves the key out of the JSON body.
      return fc.option(inner(def.innerType!), { nil: undefined, freq: 4 });
    case 'nullable':
      return fc.option(inner(def.innerType!), { nil: null, freq: 4 });
    case 'pipe':
      // z.preprocess(f, s) is a pipe from a transform: generate what `s` takes.
      return inner(defOf(def.in!).type === 'transform' ? def.out! : def.in!);
    case 'object':
      return fc.record(Object.fromEntries(Object.entries(def.shape!).map(([k, v]) => [k, inner(v, path ? `${path}.${k}` : k)])));
    case 'array': {
      const checks = (def.checks ?? []).map((c) => c._zod.def);
      const min = Math.max(0, ...checks.filter((c) => c.check === 'min_length').map((c) => c.minimum!));
      const max = Math.min(MAX_ITEMS, ...checks.filter((c) => c.check === 'max_length').map((c) => c.maximum!));
      return fc.array(inner(def.element!, `${path}[]`), { minLength: min, maxLength: Math.max(min, max) });
    }
    case 'string':
      return stringArb(def);
    case 'number':
      return numberArb(schema);
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries!));
    case 'literal':
      return fc.constantFrom(...def.values!);
    case 'union':
      return fc.oneof(...def.options!.map((o) => inner(o)));
    default:
      throw new Error(`zod-arbitrary: no generator for a ${def.type} at ${path || 'the root'}`);
  }
}

/** A JSON body's value: `undefined` fields dropped, as JSON.stringify drops them. */
export const jsonValue = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
