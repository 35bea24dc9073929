import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { downloadFileName } from '../../../domain/attachment-files';
import { attachmentTooLarge, deleteAttachment, getAttachment, readAttachment, storeAttachment } from '../../../services/attachments';
import { claimUpload, isKeyedUpload } from '../../plugins/idempotency';
import { interfaceBaseUrl } from '../../urls';
import { ATTACHMENT_FIELD, AttachmentResponse, toAttachment } from '../../../schemas/attachment';
import { IdParams } from '../../../schemas/common';
import { OkOnly, okReply, okOnlyReply } from '../../../schemas/envelope';
import { operations, type RoutePlugin } from '../operation';
import { receiveFilePart, untruncated } from './file-part';
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

/**
 * POST /attachments (multipart, one file part `attachment[media]`), GET /attachments/:id,
 * GET /attachments/:id/download (the bytes), DELETE /attachments/:id. The multipart parser is
 * registered in this plugin only; JSON and XML parsing elsewhere is untouched.
 */
export const attachmentRoutes: RoutePlugin = async (app, { deps }) => {
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
    { ...op('createAttachment', 'Upload an attachment', { response: { 200: AttachmentResponse } }), config: { bodyIsFile: true } },
    async (request, reply) => {
      const part = await receiveFilePart(request, ATTACHMENT_FIELD, maxBytes);
      let bytes: AsyncIterable<Buffer> = untruncated(part, () => attachmentTooLarge(maxBytes));
      if (isKeyedUpload(request)) {
        // With an Idempotency-Key the file is read whole (at most ATTACHMENT_MAX_BYTES) so that a retry is known by its content.
        const file = await buffer(bytes);
        const sha256 = crypto.createHash('sha256').update(file).digest('hex');
        if (await claimUpload(request, reply, { file_name: part.filename, sha256 })) return reply;
        bytes = Readable.from([file]);
      }
      const row = await storeAttachment(deps, request.client.id, { fileName: part.filename, bytes });
      return okReply('attachment', toAttachment(row, base(request)));
    },
  );

  app.get(
    '/attachments/:id',
    op('getAttachment', "Get an attachment's metadata", { params: IdParams, response: { 200: AttachmentResponse } }),
    async (request) => {
      const row = await getAttachment(deps, request.client.id, request.params.id);
      return okReply('attachment', toAttachment(row, base(request)));
    },
  );

  app.get(
    '/attachments/:id/download',
    op('downloadAttachment', "Download an attachment's bytes", {
      params: IdParams,
      response: { 200: attachmentBytes("The file's bytes, in the type sniffed at upload") },
    }),
    async (request, reply) => {
      const { row, body } = await readAttachment(deps, request.client.id, request.params.id);
      const name = downloadFileName(row.file_name, row.content_type);
      const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
      return reply
        .type(row.content_type)
        .header('content-length', String(row.size_bytes))
        .header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`)
        .header('cache-control', 'private, no-store')
        .send(body);
    },
  );

  app.delete(
    '/attachments/:id',
    op('deleteAttachment', 'Delete an attachment', { params: IdParams, response: { 200: OkOnly } }),
    (request) => okOnlyReply(deleteAttachment(deps, request.client.id, request.params.id)),
  );
};
