import type { CommentRow } from './database';
import type { Db } from './db';
import { newId } from './ids';

/*
 * Writes of the advertiser's side of an offer's comment thread. Review-team comments (rejection
 * reasons) are written by `changeOfferStatus` in offer-records.ts and are never changed here: every
 * statement below is limited to author_role 'advertiser'.
 */

export interface NewComment {
  offerId: string;
  authorName: string;
  content: string;
  attachmentIds: string[];
}

export function insertAdvertiserComment(db: Db, c: NewComment): Promise<CommentRow> {
  return db
    .insertInto('comments')
    .values({
      id: newId('cmt'),
      offer_id: c.offerId,
      author_role: 'advertiser',
      author_name: c.authorName,
      content: c.content,
      attachment_ids: JSON.stringify(c.attachmentIds),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Changes the given fields of an advertiser's comment; undefined when there is no such comment. */
export function updateAdvertiserComment(
  db: Db,
  offerId: string,
  commentId: string,
  u: { authorName?: string; content?: string; attachmentIds?: string[] },
): Promise<CommentRow | undefined> {
  return db
    .updateTable('comments')
    .set({
      updated_at: new Date(),
      ...(u.authorName !== undefined ? { author_name: u.authorName } : {}),
      ...(u.content !== undefined ? { content: u.content } : {}),
      ...(u.attachmentIds !== undefined ? { attachment_ids: JSON.stringify(u.attachmentIds) } : {}),
    })
    .where('id', '=', commentId)
    .where('offer_id', '=', offerId)
    .where('author_role', '=', 'advertiser')
    .returningAll()
    .executeTakeFirst();
}

/** Deletes an advertiser's comment; false when there is no such comment. */
export async function deleteAdvertiserComment(db: Db, offerId: string, commentId: string): Promise<boolean> {
  const res = await db
    .deleteFrom('comments')
    .where('id', '=', commentId)
    .where('offer_id', '=', offerId)
    .where('author_role', '=', 'advertiser')
    .executeTakeFirst();
  return res.numDeletedRows > 0n;
}
