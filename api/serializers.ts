import type { z } from 'zod';
import { compileProjection } from '../schemas/projection';

/**
 * A route's `serializerCompiler` for JSON answers the service builds itself from validated rows:
 * the response schema's projection (schemas/projection.ts: its fields, in its order, unchecked),
 * then JSON.stringify. Routes without it keep the zod serializer, which re-checks every field.
 */
export function projectingSerializer({ schema }: { schema: unknown }): (data: unknown) => string {
  const project = compileProjection(schema as z.ZodType);
  return (data) => JSON.stringify(project(data));
}
