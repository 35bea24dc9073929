import type { z } from 'zod';
import { defOf } from './zod-def';

/*
 * Unknown fields in a request body are refused (as Stripe does), so a misspelt `titel` is an error
 * and not a silent no-op. A field the resource *shows* but a client cannot set (`id`,
 * `quantity_in_stock`, timestamps) is accepted and dropped, so a client can send back what it
 * read. Both are decided from the schemas the route already has: the body schema says what may be
 * set, the answer's schema what the resource shows. No per-route list, so a field added to a
 * resource schema is known everywhere at once.
 */

type AnySchema = z.ZodType;

/** The schema under wrappers that do not change which keys an object has. */
function unwrap(schema: AnySchema | undefined): AnySchema | undefined {
  let s = schema;
  for (let i = 0; s && i < 20; i++) {
    const def = defOf(s);
    if (def.innerType) s = def.innerType;
    else if (def.type === 'pipe') s = def.in;
    else if (def.type === 'lazy') s = def.getter!();
    else return s;
  }
  return s;
}

export interface FieldCheck {
  /** Paths of fields neither settable nor shown, e.g. `offer.titel`, `offer.advertiser.categories[0].x`. */
  unknown: string[];
  /** The body without the shown-but-read-only fields. */
  cleaned: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function walk(input: AnySchema | undefined, shown: AnySchema | undefined, value: unknown, path: string, unknown: string[]): unknown {
  const s = unwrap(input);
  if (!s) return value;
  const def = defOf(s);
  const shownDef = unwrap(shown) && defOf(unwrap(shown)!);
  if (def.type === 'object' && isPlainObject(value)) {
    // A catch-all (passthrough) object takes any key: nothing is unknown below it.
    if (def.catchall && defOf(def.catchall).type !== 'never') return value;
    const shape = def.shape ?? {};
    const shownShape = shownDef?.type === 'object' ? (shownDef.shape ?? {}) : {};
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (Object.hasOwn(shape, key)) out[key] = walk(shape[key], shownShape[key], v, join(path, key), unknown);
      else if (!Object.hasOwn(shownShape, key)) unknown.push(join(path, key));
      // else: shown but read-only, dropped.
    }
    return out;
  }
  if (def.type === 'array' && Array.isArray(value)) {
    const shownElement = shownDef?.type === 'array' ? shownDef.element : undefined;
    return value.map((item, i) => walk(def.element, shownElement, item, `${path}[${i}]`, unknown));
  }
  if (def.type === 'union' && isPlainObject(value)) {
    // The option that knows the most of the value's keys decides.
    let best: { found: string[]; out: unknown } | undefined;
    for (const option of def.options ?? []) {
      const found: string[] = [];
      const out = walk(option, shown, value, path, found);
      if (!best || found.length < best.found.length) best = { found, out };
    }
    if (best) unknown.push(...best.found);
    return best ? best.out : value;
  }
  return value;
}

/** Checks a parsed body against the route's body schema and the schema of the resource it answers with. */
export function checkFields(body: AnySchema, shown: AnySchema | undefined, value: unknown): FieldCheck {
  const unknown: string[] = [];
  const cleaned = walk(body, shown, value, '', unknown);
  return { unknown, cleaned };
}
