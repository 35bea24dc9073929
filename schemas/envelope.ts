import { z } from 'zod';
import type { CursorPaged, Page, Paged } from '../domain/paging';

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

/**
 * `listEnvelope` with a bounded `total` (the offer search): exact up to a bound, then the bound as
 * a lower bound, which `total_relation` says; and `next_cursor`, where the next page starts (sent
 * back as `after`), null on the last page.
 */
export function boundedListEnvelope<K extends string, S extends z.ZodType>(pluralKey: K, item: S, bound: number) {
  return listEnvelope(pluralKey, item).extend({
    total: z
      .number()
      .int()
      .describe(
        `How many items match, across all pages: exact up to ${bound}; past that, ${bound} with total_relation "gte" (at least that many). ` +
          'Page on until next_cursor is null (or a page comes back short or empty).',
      ),
    total_relation: z
      .enum(['eq', 'gte'])
      .describe(`"eq": total is the exact count. "gte": more than ${bound} items match; total is ${bound}, a lower bound.`),
    next_cursor: z
      .string()
      .nullable()
      .describe(
        'Send as `after` (with the same query, no page) for the page after this one; null when no item follows this page. ' +
          'Opaque: store it as given. Reads from where this page ended, however deep, and never repeats or skips an item that keeps its sort key.',
      ),
  });
}

/** The reply of a single-resource route, in the `okEnvelope` shape: `{status:"OK", <root>: resource}`. */
export function okReply<K extends string, T>(rootKey: K, resource: T) {
  return { status: 'OK', [rootKey]: resource } as { status: 'OK' } & Record<K, T>;
}

/** The `OkOnly` reply of a route whose change (`done`: a cancellation, a deletion) answers nothing else. */
export async function okOnlyReply(done: Promise<unknown>) {
  await done;
  return { status: 'OK' as const };
}

/** The reply of a list route, in the `listEnvelope` shape: the page's items under their plural key. */
export function listReply<K extends string, T>(pluralKey: K, list: Paged<T>, page: Page) {
  return { ...okReply(pluralKey, list.rows), page: page.page, per_page: page.per_page, total: list.total };
}

/** The reply of a route in the `boundedListEnvelope` shape: `listReply`, how `total` relates to the count, and the next cursor. */
export function boundedListReply<K extends string, T>(pluralKey: K, list: CursorPaged<T>, page: Page) {
  return { ...listReply(pluralKey, list, page), total_relation: list.total_relation, next_cursor: list.next_cursor };
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

/**
 * 202 from a route that waits for a workflow: the change was accepted (its workflow admitted it)
 * but not applied by the answer deadline; it will be. `message` says where the result shows.
 */
export const AcceptedBody = z.object({
  status: z.literal('ACCEPTED'),
  code: z.literal('accepted_pending'),
  message: z.string(),
  offer_id: z.string().optional(),
  reservation_id: z.string().optional(),
  order_id: z.string().optional(),
  request_id: z.string().optional(),
});

/**
 * The answers past the one answer deadline (WORKFLOW_ANSWER_TIMEOUT_SECONDS) of a route that waits
 * for a workflow, for its OpenAPI responses: 202 when the change was accepted (`accepted` false for
 * routes that answer only 503: placing an order, which is retried by order_number), 503 when nothing
 * was confirmed. Both carry Retry-After.
 */
export function deadlineResponses(accepted = true) {
  const unconfirmed = ErrorBody.describe(
    'backend_unavailable: the workflow did not confirm the change by the answer deadline (or a backing service is down); ' +
      'the error names the resource: GET it, and send the request again if the change did not happen. See Retry-After.',
  );
  if (!accepted) return { 503: unconfirmed };
  return {
    202: AcceptedBody.describe(
      'accepted_pending: the workflow accepted the change but had not applied it by the answer deadline; it will be. ' +
        '`message` says where it shows (GET the resource); see Retry-After.',
    ),
    503: unconfirmed,
  };
}
