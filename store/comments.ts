import type { CommentRow } from './database';
import type { Db, Trx } from './db';
import { derivedId, newId } from './ids';
import type { Page, Paged } from '../domain/paging';
import { pageOf } from './paging';

/*
 * An offer's comment thread. Review-team comments (rejection reasons) are written once, in the
 * status change's transaction (`insertReviewTeamComment`), and never changed: every other write
 * below is limited to author_role 'advertiser'.
 */

export interface NewComment {
  offerId: string;
  authorName: string;
  content: string;
  attachmentIds: string[];
}

/**
 * Writes an advertiser's comment; returns its row. `id` names it (a keyed request's), and a comment
 * of that id already there is left as it is (undefined then: the caller reads it).
 */
export function insertAdvertiserComment(db: Db, c: NewComment & { id?: string }): Promise<CommentRow | undefined> {
  return db
    .insertInto('comments')
    .values({
      id: c.id ?? newId('cmt'),
      offer_id: c.offerId,
      author_role: 'advertiser',
      author_name: c.authorName,
      content: c.content,
      attachment_ids: JSON.stringify(c.attachmentIds),
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * Writes the review team's comment (a rejection's reason) in the caller's transaction, its id
 * derived from the step's key so a retried step writes it once.
 */
export async function insertReviewTeamComment(
  trx: Trx,
  c: { key: string; offerId: string; authorName: string; content: string },
): Promise<void> {
  await trx
    .insertInto('comments')
    .values({ id: derivedId('cmt', c.key), offer_id: c.offerId, author_role: 'review_team', author_name: c.authorName, content: c.content })
    .execute();
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

/** The thread of one offer, oldest first (the order it was written in). */
export function listOfferComments(db: Db, offerId: string, page: Page): Promise<Paged<CommentRow>> {
  return pageOf(db.selectFrom('comments').where('offer_id', '=', offerId), page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
}

/** One comment of one offer; a comment of another offer is not found. */
export function findOfferComment(db: Db, offerId: string, commentId: string): Promise<CommentRow | undefined> {
  return db.selectFrom('comments').selectAll().where('id', '=', commentId).where('offer_id', '=', offerId).executeTakeFirst();
}
