import type { CommentRow } from './database';
import type { Db } from './db';
import type { Comment } from '../schemas/comment';
import { pageBounds, type PageQuery } from '../schemas/pagination';
import { findClientAttachments, iso, toAttachment } from './attachments';

/**
 * Comments as clients see them, their attachment ids resolved to the offer owner's live
 * attachments (a deleted attachment drops out of the list).
 */
export async function toComments(db: Db, clientId: string, rows: CommentRow[], downloadBase: string): Promise<Comment[]> {
  const attachments = await findClientAttachments(
    db,
    clientId,
    rows.flatMap((r) => r.attachment_ids),
  );
  const byId = new Map(attachments.map((a) => [a.id, toAttachment(a, downloadBase)]));
  return rows.map((r) => ({
    id: r.id,
    author_name: r.author_name,
    content: r.content,
    created_at: iso(r.created_at),
    attachments: r.attachment_ids.flatMap((id) => byId.get(id) ?? []),
    author_role: r.author_role,
    updated_at: iso(r.updated_at),
  }));
}

/** The thread of one offer, oldest first (the order it was written in). */
export async function listOfferComments(db: Db, offerId: string, q: PageQuery) {
  const query = db.selectFrom('comments').where('offer_id', '=', offerId);
  const { limit, offset } = pageBounds(q);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** One comment of one offer; a comment of another offer is not found. */
export function findOfferComment(db: Db, offerId: string, commentId: string): Promise<CommentRow | undefined> {
  return db.selectFrom('comments').selectAll().where('id', '=', commentId).where('offer_id', '=', offerId).executeTakeFirst();
}
