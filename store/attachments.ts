import type { Insertable } from 'kysely';
import type { AttachmentRow, AttachmentTable } from './database';
import type { Db, Trx } from './db';
import { requireAttachmentUnused } from '../domain/attachment-files';
import { MAX_OFFERS_NAMED, offersShowingAttachment } from './offer-media';

/*
 * Uploaded files' rows; their bytes are in the object store under `object_key`. A deleted
 * attachment keeps its row (deleted_at set) and is invisible to every read here.
 */

/** Writes the row of an upload whose bytes are stored; returns it. */
export function insertAttachment(db: Db, row: Insertable<AttachmentTable>): Promise<AttachmentRow> {
  return db.insertInto('attachments').values(row).returningAll().executeTakeFirstOrThrow();
}

/** One live (not deleted) attachment of this client; another client's is not found. */
export async function findClientAttachment(db: Db, clientId: string, id: string): Promise<AttachmentRow | undefined> {
  return (await findClientAttachments(db, clientId, [id]))[0];
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

/**
 * Marks one live attachment of this client deleted and, in the same transaction, has
 * `removeBytes` remove its object: if that fails, the row stays live. False when there is none.
 * Refused (`attachment_in_use`, naming them) while an offer that has not ended shows it. The row
 * is locked before the offers are read, and an offer being written holds its media rows
 * (`holdLiveAttachments`), so an offer naming it cannot commit unseen in between.
 */
export async function deleteClientAttachment(
  db: Db,
  clientId: string,
  id: string,
  removeBytes: (objectKey: string) => Promise<void>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('attachments')
      .set({ deleted_at: new Date() })
      .where('id', '=', id)
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .returning('object_key')
      .executeTakeFirst();
    if (!row) return false;
    const offers = await offersShowingAttachment(trx, clientId, id);
    requireAttachmentUnused(id, offers, MAX_OFFERS_NAMED);
    await removeBytes(row.object_key);
    return true;
  });
}

/**
 * Locks (FOR SHARE) the client's live attachments among `ids` while an offer naming them is
 * written, and returns the ids that are not among them (deleted meanwhile, unknown, another's).
 * A deletion waits for that write, then sees the offer; a deletion that came first is seen here.
 */
export async function holdLiveAttachments(trx: Trx, clientId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const live = await trx
    .selectFrom('attachments')
    .select('id')
    .where('id', 'in', [...new Set(ids)])
    .where('client_id', '=', clientId)
    .where('deleted_at', 'is', null)
    .forShare()
    .execute();
  const held = new Set(live.map((r) => r.id));
  return ids.filter((id) => !held.has(id));
}

/** Any client's live attachment by id (the review console shows an offer's media). */
export function findLiveAttachment(db: Db, id: string): Promise<AttachmentRow | undefined> {
  return db.selectFrom('attachments').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Any clients' live attachments among `ids` (offers' media on the distribution interface; the caller matches each to its offer's client). */
export async function findLiveAttachments(db: Db, ids: readonly string[]): Promise<AttachmentRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('attachments')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .where('deleted_at', 'is', null)
    .execute();
}
