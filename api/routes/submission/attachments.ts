import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { downloadFileName } from '../../../domain/attachment-files';
import type { ServiceDeps } from '../../../services/deps';
import { attachmentTooLarge, deleteAttachment, getAttachment, readAttachment, storeAttachment } from '../../../services/attachments';
import { ApiError, invalidField } from '../../errors';
import { claimUpload, isKeyedUpload } from '../../plugins/idempotency';
import { interfaceBaseUrl } from '../../urls';
import { ATTACHMENT_FIELD, AttachmentParams, AttachmentResponse, toAttachment } from '../../../schemas/attachment';
import { OkOnly } from '../../../schemas/envelope';
import { operations } from '../operation';
import { attachmentBytes } from '../shared/file-responses';

const op = operations('Attachments');

/** Room for the multipart framing and form fields around a file of the maximum size. */
const MULTIPART_SLACK_BYTES = 64 * 1024;
const DRAIN_MS = 15_000;

/** Whether the body has been read to its end (`complete` on a socket; `readableEnded` on any stream, e.g. app.inject's). */
const bodyEnded = (raw: IncomingMessage) => raw.complete || raw.readableEnded;

/**
 * Reads and discards what is left of a request body: true once it has ended, false when it goes
 * past `maxBytes`, stalls past `timeoutMs` or breaks off. Detaches the multipart parser first, so
 * nothing buffers what is read.
 */
function drainBody(raw: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<boolean> {
  if (bodyEnded(raw)) return Promise.resolve(true);
  raw.unpipe();
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', onEnd).off('error', onFail).off('close', onClose);
      if (!ended) raw.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onFail = () => finish(false);
    const onClose = () => finish(raw.complete);
    const timer = setTimeout(onFail, timeoutMs);
    raw.on('data', onData).once('end', onEnd).once('error', onFail).once('close', onClose);
    raw.resume();
  });
}

/** The one file part of the upload, or a 4xx saying what is wrong with the request. */
async function receiveFilePart(request: FastifyRequest, maxBytes: number): Promise<MultipartFile> {
  let part: MultipartFile | undefined;
  try {
    // fileSize one past the limit: our own count then sees the excess byte and refuses the upload
    // mid-stream, instead of busboy silently truncating the file at the limit.
    part = await request.file({ limits: { fileSize: maxBytes + 1, files: 1, fields: 10, fieldSize: 4096, parts: 20 } });
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('FST_')) throw err; // the error handler maps the plugin's errors
    throw new ApiError(400, 'malformed_body', `malformed multipart body: ${(err as Error).message}`);
  }
  if (!part) throw invalidField(ATTACHMENT_FIELD, `send the file as a multipart/form-data file part named ${ATTACHMENT_FIELD}`);
  if (part.fieldname !== ATTACHMENT_FIELD) {
    part.file.resume(); // drain it: the answer does not depend on its content
    throw invalidField(ATTACHMENT_FIELD, `the file part is named "${part.fieldname}"; it must be named ${ATTACHMENT_FIELD}`);
  }
  return part;
}

/**
 * The file part's bytes, failing as soon as busboy reports the part was cut at its size limit; a
 * body that breaks off mid-part (client gone, bad framing) is the client's fault, not a 500.
 * (The service counts the bytes too, and refuses past the limit with the same 413.)
 */
async function* untruncated(part: MultipartFile, maxBytes: number): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of part.file) yield chunk as Buffer;
  } catch (err) {
    throw new ApiError(400, 'malformed_body', `the upload broke off: ${(err as Error).message}`);
  }
  if (part.file.truncated) throw attachmentTooLarge(maxBytes);
}

async function readWhole(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const all: Buffer[] = [];
  for await (const c of chunks) all.push(c);
  return Buffer.concat(all);
}

/**
 * POST /attachments (multipart, one file part `attachment[media]`), GET /attachments/:id,
 * GET /attachments/:id/download (the bytes), DELETE /attachments/:id. The multipart parser is
 * registered in this plugin only; JSON and XML parsing elsewhere is untouched.
 */
export const attachmentRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  await app.register(multipart, { throwFileSizeLimit: false });
  const maxBytes = deps.config.ATTACHMENT_MAX_BYTES;
  // An upload refused early (415 after its first bytes, 413, a wrong part) leaves the rest of the
  // body unread. Closing the socket then makes the kernel answer the client's next write with a
  // reset, and the client sees EPIPE/ECONNRESET instead of our answer. So the rest is read and
  // discarded first (up to the upload limit, for at most DRAIN_MS); only a body past that is cut,
  // with the connection closed after the answer.
  app.addHook('onSend', async (request, reply) => {
    if (bodyEnded(request.raw)) return;
    const drained = await drainBody(request.raw, maxBytes + MULTIPART_SLACK_BYTES, DRAIN_MS);
    if (!drained) reply.header('connection', 'close');
  });
  const base = (request: FastifyRequest) => interfaceBaseUrl(request, app.prefix);

  app.post(
    '/attachments',
    { schema: { ...op('createAttachment', 'Upload an attachment'), response: { 200: AttachmentResponse } }, config: { bodyIsFile: true } },
    async (request, reply) => {
      const part = await receiveFilePart(request, maxBytes);
      let bytes: AsyncIterable<Buffer> = untruncated(part, maxBytes);
      if (isKeyedUpload(request)) {
        // With an Idempotency-Key the file is read whole (at most ATTACHMENT_MAX_BYTES) so that a retry is known by its content.
        const file = await readWhole(bytes);
        const sha256 = crypto.createHash('sha256').update(file).digest('hex');
        if (await claimUpload(request, reply, { file_name: part.filename, sha256 })) return reply;
        bytes = (async function* () {
          yield file;
        })();
      }
      const row = await storeAttachment(deps, request.client.id, { fileName: part.filename, bytes });
      return { status: 'OK' as const, attachment: toAttachment(row, base(request)) };
    },
  );

  app.get(
    '/attachments/:id',
    { schema: { ...op('getAttachment', "Get an attachment's metadata"), params: AttachmentParams, response: { 200: AttachmentResponse } } },
    async (request) => {
      const row = await getAttachment(deps, request.client.id, request.params.id);
      return { status: 'OK' as const, attachment: toAttachment(row, base(request)) };
    },
  );

  app.get(
    '/attachments/:id/download',
    {
      schema: {
        ...op('downloadAttachment', "Download an attachment's bytes"),
        params: AttachmentParams,
        response: { 200: attachmentBytes("The file's bytes, in the type sniffed at upload") },
      },
    },
    async (request, reply) => {
      const { row, body } = await readAttachment(deps, request.client.id, request.params.id);
      const name = downloadFileName(row.file_name, row.content_type);
      const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
      return reply
        .type(row.content_type)
        .header('content-length', String(row.size_bytes))
        .header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(body);
    },
  );

  app.delete(
    '/attachments/:id',
    { schema: { ...op('deleteAttachment', 'Delete an attachment'), params: AttachmentParams, response: { 200: OkOnly } } },
    async (request) => {
      await deleteAttachment(deps, request.client.id, request.params.id);
      return { status: 'OK' as const };
    },
  );
};
