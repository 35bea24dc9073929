import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { imageSize } from 'image-size';
import { Failure, invalidField, notFound } from '../domain/failures';
import {
  ALLOWED_TYPES_TEXT,
  cleanFileName,
  displayFileName,
  SNIFF_BYTES,
  sniffFileType,
  storageFileName,
  type FileType,
} from '../domain/attachment-files';
import { ObjectTooLargeError, putStreamBounded } from '../platform/object-upload';
import type { ObjectStore } from '../platform/object-store';
import { ATTACHMENT_FIELD } from '../schemas/attachment';
import { deleteClientAttachment, findClientAttachment, insertAttachment } from '../store/attachments';
import type { AttachmentRow } from '../store/database';
import { newId } from '../store/ids';
import type { ServiceDeps } from './deps';

/*
 * Clients' uploaded files (docs/attachments-and-comments.md): bytes in the object store under
 * `<client>/<id>/<safe name>`, a row in Postgres; the type is decided from the bytes.
 */

/** Past ATTACHMENT_MAX_BYTES: the details in the order the API has always answered them (code, message, field). */
export const attachmentTooLarge = (maxBytes: number) =>
  Failure.of([
    { code: 'payload_too_large', message: `the attachment is larger than the maximum of ${maxBytes} bytes`, field: ATTACHMENT_FIELD },
  ]);

/** The file's type from its first bytes: unsupported_media_type for anything but the allowed types, invalid_field for an empty file. */
function requireAllowedType(head: Buffer): FileType {
  if (head.length === 0) throw invalidField(ATTACHMENT_FIELD, 'the file is empty');
  const type = sniffFileType(head);
  if (!type)
    throw new Failure('unsupported_media_type', `the file's content is not ${ALLOWED_TYPES_TEXT} (decided from its bytes, not its name)`, {
      field: ATTACHMENT_FIELD,
    });
  return type;
}

/**
 * Stores an upload under `<client>/<id>/<safe name>`, then writes its row. Either both exist
 * afterwards or neither does (an object whose row cannot be written is removed). The bytes are
 * streamed, at most one part held in memory (platform/object-upload); their type is decided from
 * the first of them before anything is stored, and past ATTACHMENT_MAX_BYTES the upload is refused.
 */
export async function storeAttachment(
  deps: Pick<ServiceDeps, 'db' | 'store' | 'config'>,
  clientId: string,
  upload: { fileName: string | undefined; bytes: AsyncIterable<Buffer> },
): Promise<AttachmentRow> {
  const { db, store } = deps;
  const id = newId('att');
  const clean = cleanFileName(upload.fileName);
  const key = `${clientId}/${id}/${storageFileName(clean)}`;
  let type: FileType | undefined;
  const inspect = (head: Buffer) => (type = requireAllowedType(head)).contentType;
  const maxBytes = deps.config.ATTACHMENT_MAX_BYTES;
  const { size } = await putStreamBounded(store, upload.bytes, { key, maxBytes, inspect, headBytes: SNIFF_BYTES }).catch((err) => {
    throw err instanceof ObjectTooLargeError ? attachmentTooLarge(maxBytes) : err;
  });
  const dimensions = type!.contentType.startsWith('image/') ? await imageDimensions(deps, key) : null;
  return insertAttachment(db, {
    id,
    client_id: clientId,
    file_name: displayFileName(clean, type!),
    content_type: type!.contentType,
    size_bytes: size,
    object_key: key,
    width: dimensions?.width ?? null,
    height: dimensions?.height ?? null,
  }).catch(async (err) => {
    await store.client.removeObject(store.bucket, key).catch(() => undefined);
    throw err;
  });
}

/** How much of an image is read to find its size: PNG states it in its first 24 bytes, JPEG in a frame header after its metadata. */
const DIMENSIONS_HEAD_BYTES = 512 * 1024;

/**
 * An uploaded image's pixel size, read from the start of the stored object (one ranged GET, done
 * once at upload so offer answers never read the store). Null when the header cannot be read
 * there (a JPEG with more than 512 KiB of metadata before its frame): the image is still accepted.
 */
async function imageDimensions(deps: Pick<ServiceDeps, 'store'>, key: string): Promise<{ width: number; height: number } | null> {
  try {
    const stream = await deps.store.client.getPartialObject(deps.store.bucket, key, 0, DIMENSIONS_HEAD_BYTES);
    const { width, height } = imageSize(await buffer(stream));
    return width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  }
}

/** A stored object's bytes; `missing()` is thrown when the store has no such key. */
export const readStored = (store: ObjectStore, key: string, missing: () => Failure): Promise<Readable> =>
  store.client.getObject(store.bucket, key).catch((err: { code?: string }) => Promise.reject(err.code === 'NoSuchKey' ? missing() : err));

/** One of the client's live attachments; another client's is not found. */
export async function getAttachment(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string): Promise<AttachmentRow> {
  return (await findClientAttachment(deps.db, clientId, id)) ?? Promise.reject(notFound('attachment'));
}

/** One of the client's live attachments and a stream of its bytes. */
export async function readAttachment(
  deps: Pick<ServiceDeps, 'db' | 'store'>,
  clientId: string,
  id: string,
): Promise<{ row: AttachmentRow; body: Readable }> {
  const row = await getAttachment(deps, clientId, id);
  return { row, body: await readStored(deps.store, row.object_key, () => notFound('attachment content')) };
}

/** Deletes one of the client's attachments: bytes and row go together (if the store refuses, the row stays live and the client may retry). */
export async function deleteAttachment(deps: Pick<ServiceDeps, 'db' | 'store'>, clientId: string, id: string): Promise<void> {
  const { store } = deps;
  const deleted = await deleteClientAttachment(deps.db, clientId, id, (objectKey) => store.client.removeObject(store.bucket, objectKey));
  if (!deleted) throw notFound('attachment');
}
