import { z } from 'zod';
import { defOf } from './zod-def';

/*
 * A response's shape without its checks: a function compiled once from the resource's zod schema
 * that keeps, in the schema's order, exactly the fields the schema declares (zod's own output drops
 * the others the same way) and checks nothing. For answers the service builds itself from rows it
 * validated on the way in, on hot routes, where re-checking every field of 50 offers was the
 * largest CPU cost of a search (docs/distribution-search-design.md). The zod schema stays the one source
 * of the shape: test/unit/projection.test.ts holds the two to the same output.
 */

type Project = (value: unknown) => unknown;

const identity: Project = (v) => v;

/** Kinds whose valid output is the input itself (the value is a string, number, boolean, date, null…). */
const AS_IS = new Set([
  'string',
  'number',
  'int',
  'boolean',
  'bigint',
  'date',
  'literal',
  'enum',
  'null',
  'any',
  'unknown',
  'template_literal',
]);

function isAsIs(schema: z.core.$ZodType): boolean {
  const def = defOf(schema);
  if (AS_IS.has(def.type)) return true;
  if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'readonly')
    return isAsIs(def.innerType!);
  if (def.type === 'union') return def.options!.every(isAsIs);
  return false;
}

/** The projection of one schema; kinds it does not know (pipes, transforms, records…) are left to zod's own encoder. */
function compile(schema: z.core.$ZodType): Project {
  if (isAsIs(schema)) return identity;
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'readonly': {
      const inner = compile(def.innerType!);
      return (v) => (v === undefined ? undefined : inner(v));
    }
    case 'nullable': {
      const inner = compile(def.innerType!);
      return (v) => (v === null ? null : inner(v));
    }
    case 'array': {
      const item = compile(def.element!);
      return item === identity ? (v) => (v as unknown[]).slice() : (v) => (v as unknown[]).map(item);
    }
    case 'object': {
      // An object that keeps unknown fields (loose, catchall) is left to zod.
      if (def.catchall) break;
      const fields = Object.entries(def.shape!).map(([key, s]) => [key, compile(s)] as const);
      return (v) => {
        const input = v as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const [key, project] of fields) {
          const value = input[key];
          if (value !== undefined) out[key] = project(value);
        }
        return out;
      };
    }
  }
  return (v) => z.encode(schema as z.ZodType, v as never);
}

/** The projection of `schema` (see above), compiled once; apply it to values of the schema's output type only. */
export function compileProjection<S extends z.ZodType>(schema: S): (value: z.output<S>) => z.output<S> {
  return compile(schema) as (value: z.output<S>) => z.output<S>;
}
