import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ApiError, invalidField } from '../../errors';

/*
 * The one way a route reads an uploaded file (an attachment, a voucher import's CSV): one
 * multipart file part of a given name, its bytes streamed, and every way the body can be wrong a
 * 4xx: a bad framing or a body cut off before its closing boundary is 400 malformed_body, a file
 * past its limit 413, a part of another name 422. The route registers @fastify/multipart with
 * `throwFileSizeLimit: false`: the limit is checked here.
 */

/** The one file part of the upload, or a 4xx saying what is wrong with the request. */
export async function receiveFilePart(request: FastifyRequest, field: string, maxBytes: number): Promise<MultipartFile> {
  let part: MultipartFile | undefined;
  try {
    // fileSize one past the limit: our own count then sees the excess byte and refuses the upload
    // mid-stream, instead of busboy silently truncating the file at the limit.
    part = await request.file({ limits: { fileSize: maxBytes + 1, files: 1, fields: 10, fieldSize: 4096, parts: 20 } });
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('FST_')) throw err; // the error handler maps the plugin's errors
    throw new ApiError(400, 'malformed_body', `malformed multipart body: ${(err as Error).message}`);
  }
  if (!part) throw invalidField(field, `send the file as a multipart/form-data file part named ${field}`);
  if (part.fieldname !== field) {
    part.file.resume(); // drain it: the answer does not depend on its content
    throw invalidField(field, `the file part is named "${part.fieldname}"; it must be named ${field}`);
  }
  return part;
}

/**
 * The file part's bytes, failing as soon as busboy reports the part was cut at its size limit
 * (`tooLarge`); a body that breaks off mid-part (client gone, no closing boundary) is the client's
 * fault, not a 500.
 */
export async function* untruncated(part: MultipartFile, tooLarge: () => Error): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of part.file) yield chunk as Buffer;
  } catch (err) {
    throw new ApiError(400, 'malformed_body', `the upload broke off: ${(err as Error).message}`);
  }
  if (part.file.truncated) throw tooLarge();
}
