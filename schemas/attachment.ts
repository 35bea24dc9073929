import { z } from 'zod';
import { kilobytes } from '../domain/attachment-files';
import type { AttachmentRow } from '../store/database';
import { IdParam, iso } from './common';
import { okEnvelope } from './envelope';

/** The multipart field that carries the file (spec §4.4). */
export const ATTACHMENT_FIELD = 'attachment[media]';

/**
 * An uploaded file (spec §2.7, all fields read-only). `file_size` is in kilobytes of 1024 bytes,
 * rounded up. `content_type` and `created_at` are additions: the type sniffed from the bytes and
 * the upload time.
 */
export const Attachment = z.object({
  id: z.string(),
  file_name: z.string(),
  file_size: z.number().int().min(0).describe('Size in kilobytes of 1024 bytes, rounded up: a 1-byte file is 1, a 1025-byte file 2'),
  download_url: z.string(),
  content_type: z.string(),
  created_at: z.string(),
});
export type Attachment = z.infer<typeof Attachment>;

export const AttachmentResponse = okEnvelope('attachment', Attachment);

/** A reference to one of the client's attachments, as offers (`creative.original_media`) and comments carry it. */
export const AttachmentRef = z.object({ id: IdParam });

/**
 * The attachment as clients see it. `downloadBase` is the absolute address of this interface
 * (e.g. `https://host/submission/beta`); the download route needs the client's API key.
 */
export function toAttachment(row: AttachmentRow, downloadBase: string): Attachment {
  return {
    id: row.id,
    file_name: row.file_name,
    file_size: kilobytes(Number(row.size_bytes)),
    download_url: `${downloadBase}/attachments/${encodeURIComponent(row.id)}/download`,
    content_type: row.content_type,
    created_at: iso(row.created_at),
  };
}
