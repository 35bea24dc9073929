import { z } from 'zod';
import { ALLOWED_CONTENT_TYPES } from '../../../domain/attachment-files';

/*
 * The answers that are files rather than JSON or XML, as the OpenAPI documents show them: each
 * media type the route sends, with a schema, so a generated client types the body (a string, or
 * bytes) instead of `never`. The route sends the string, Buffer or stream as is: fastify
 * serializes none of them.
 */

// Documented as strings; typed `any` so that a route may send a string, a Buffer or a stream.
const TEXT = z.any().meta({ type: 'string' });
const BYTES = z.any().meta({ type: 'string', format: 'binary' });

/** A text answer of one media type (`text/csv`, `text/html`, `application/x-ndjson`). */
export const textResponse = (description: string, mediaType: string) => ({
  description,
  content: { [mediaType]: { schema: TEXT } },
});

/** An attachment's bytes, in the media type it was stored as: any type an upload may be (domain/attachment-files.ts). */
export const attachmentBytes = (description: string) => ({
  description,
  content: Object.fromEntries(ALLOWED_CONTENT_TYPES.map((t) => [t, { schema: BYTES }])),
});
