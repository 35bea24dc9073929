import type { z } from 'zod';

/** What the walkers over zod schemas (xml.ts, unknown-fields.ts, projection.ts) read of a schema's definition. */
export interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
}

export const defOf = (s: z.core.$ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
