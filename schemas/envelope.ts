import { z } from 'zod';

/** `{status:"OK", <root>: resource}`: the one success shape for a single resource. */
export function okEnvelope<K extends string, S extends z.ZodType>(rootKey: K, resource: S) {
  return z.object({ status: z.literal('OK'), [rootKey]: resource } as { status: z.ZodLiteral<'OK'> } & Record<K, S>);
}

/** `{status:"OK", <plural>: [...], page, per_page, total}`: the one success shape for lists. */
export function listEnvelope<K extends string, S extends z.ZodType>(pluralKey: K, item: S) {
  return z.object({
    status: z.literal('OK'),
    [pluralKey]: z.array(item),
    page: z.number().int(),
    per_page: z.number().int(),
    total: z.number().int(),
  } as { status: z.ZodLiteral<'OK'>; page: z.ZodNumber; per_page: z.ZodNumber; total: z.ZodNumber } & Record<K, z.ZodArray<S>>);
}

/** A request body wrapped in its resource's root key: `{offer: {...}}`. */
export function wrappedBody<K extends string, S extends z.ZodType>(rootKey: K, resource: S) {
  return z.object({ [rootKey]: resource } as Record<K, S>);
}

export const OkOnly = z.object({ status: z.literal('OK') });

export const ErrorBody = z.object({
  status: z.literal('ERROR'),
  errors: z.array(z.object({ code: z.string(), message: z.string(), field: z.string().optional() }).passthrough()),
  request_id: z.string().optional(),
});
