import type { AttachmentRow } from './database';
import type { Db } from './db';
import { kilobytes } from '../api/attachment-files';
import type { Attachment } from '../schemas/attachment';

/** Timestamps leave as ISO 8601 strings in UTC. */
export const iso = (d: Date | string): string => (d instanceof Date ? d.toISOString() : d);

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

/** One live (not deleted) attachment of this client; another client's is not found. */
export function findClientAttachment(db: Db, clientId: string, id: string): Promise<AttachmentRow | undefined> {
  return db
    .selectFrom('attachments')
    .selectAll()
    .where('id', '=', id)
    .where('client_id', '=', clientId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The live attachments of this client among `ids`, in the order of `ids` (unknown ones left out). */
export async function findClientAttachments(db: Db, clientId: string, ids: readonly string[]): Promise<AttachmentRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('attachments')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .where('client_id', '=', clientId)
    .where('deleted_at', 'is', null)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The ids among `ids` that are not live attachments of this client (unknown, deleted, or
 * another client's), each once, in the order given. Offer and comment validation answer 422 for them.
 */
export async function unownedAttachmentIds(db: Db, clientId: string, ids: readonly string[]): Promise<string[]> {
  const owned = new Set((await findClientAttachments(db, clientId, ids)).map((r) => r.id));
  return [...new Set(ids)].filter((id) => !owned.has(id));
}

/** Any client's live attachment by id (the review console shows an offer's media). */
export function findLiveAttachment(db: Db, id: string): Promise<AttachmentRow | undefined> {
  return db.selectFrom('attachments').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}
