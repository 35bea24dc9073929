import type { Page, Paged } from '../domain/paging';
import { Failure, notFound } from '../domain/failures';
import { toAttachment } from '../schemas/attachment';
import { toComment, type Comment, type CommentInput, type CommentUpdate } from '../schemas/comment';
import { findClientAttachments, unownedAttachmentIds } from '../store/attachments';
import {
  deleteAdvertiserComment,
  findOfferComment,
  insertAdvertiserComment,
  listOfferComments,
  updateAdvertiserComment,
} from '../store/comments';
import type { CommentRow } from '../store/database';
import { keyedRequestId } from '../store/ids';
import type { ServiceDeps } from './deps';
import { requireOffer } from './offers';
import { refusedIds } from './offer-references';

/*
 * The thread between advertiser and review team on one offer. The offer must be the client's
 * (another client's is not found, as if it did not exist); review-team comments are listed but
 * read-only. `downloadBase` is the interface's absolute address, for the attachments' links.
 */

type Deps = Pick<ServiceDeps, 'db'>;

/** Refuses each attachment reference that is not one of the client's live attachments (one detail per field); the ids, each once. */
async function requireOwnAttachments(deps: Deps, clientId: string, refs: { id: string }[] | undefined): Promise<string[] | undefined> {
  if (!refs) return undefined;
  const ids = refs.map((r) => r.id);
  const errors = refusedIds(
    ids,
    await unownedAttachmentIds(deps.db, clientId, ids),
    (i) => `attachments[${i}].id`,
    (id, i) => `attachments[${i}].id: ${id} is not one of your attachments`,
  );
  if (errors.length) throw Failure.of(errors);
  return [...new Set(ids)];
}

/** Refuses changes to a review-team comment (forbidden) and reports a missing one. */
async function requireOwnComment(deps: Deps, offerId: string, commentId: string): Promise<void> {
  const row = await findOfferComment(deps.db, offerId, commentId);
  if (!row) throw notFound('comment');
  if (row.author_role !== 'advertiser')
    throw new Failure('forbidden', "comments of the review team are part of the offer's record and cannot be changed or deleted");
}

/** Comments as clients see them, their attachment ids resolved to the offer owner's live attachments. */
async function commentViews(deps: Deps, clientId: string, rows: CommentRow[], downloadBase: string): Promise<Comment[]> {
  const attachments = await findClientAttachments(
    deps.db,
    clientId,
    rows.flatMap((r) => r.attachment_ids),
  );
  const byId = new Map(attachments.map((a) => [a.id, toAttachment(a, downloadBase)]));
  return rows.map((r) => toComment(r, byId));
}

/** One page of an offer's thread, oldest first. */
export async function listComments(
  deps: Deps,
  clientId: string,
  offerId: string,
  page: Page,
  downloadBase: string,
): Promise<Paged<Comment>> {
  await requireOffer(deps, clientId, offerId);
  const { rows, total } = await listOfferComments(deps.db, offerId, page);
  return { rows: await commentViews(deps, clientId, rows, downloadBase), total };
}

/** Adds the advertiser's comment to an offer's thread. */
export async function createComment(
  deps: Deps,
  clientId: string,
  offerId: string,
  input: CommentInput,
  downloadBase: string,
  keyedRequest?: string,
): Promise<Comment> {
  await requireOffer(deps, clientId, offerId);
  const attachmentIds = (await requireOwnAttachments(deps, clientId, input.attachments)) ?? [];
  // Named after a keyed request (decision 0080): its retry after a 5xx answers the first try's comment.
  const id = keyedRequestId('cmt', clientId, keyedRequest);
  const row =
    (await insertAdvertiserComment(deps.db, { id, offerId, authorName: input.author_name, content: input.content, attachmentIds })) ??
    (await findOfferComment(deps.db, offerId, id!));
  if (!row) throw notFound('comment');
  return (await commentViews(deps, clientId, [row], downloadBase))[0];
}

/** One comment of one of the client's offers. */
export async function getComment(deps: Deps, clientId: string, offerId: string, commentId: string, downloadBase: string): Promise<Comment> {
  await requireOffer(deps, clientId, offerId);
  const row = await findOfferComment(deps.db, offerId, commentId);
  if (!row) throw notFound('comment');
  return (await commentViews(deps, clientId, [row], downloadBase))[0];
}

/** Changes the advertiser's own comment (`attachments` replaces the whole list). */
export async function updateComment(
  deps: Deps,
  clientId: string,
  offerId: string,
  commentId: string,
  changes: CommentUpdate,
  downloadBase: string,
): Promise<Comment> {
  await requireOffer(deps, clientId, offerId);
  await requireOwnComment(deps, offerId, commentId);
  const attachmentIds = await requireOwnAttachments(deps, clientId, changes.attachments);
  const row = await updateAdvertiserComment(deps.db, offerId, commentId, {
    authorName: changes.author_name,
    content: changes.content,
    attachmentIds,
  });
  if (!row) throw notFound('comment'); // deleted in between
  return (await commentViews(deps, clientId, [row], downloadBase))[0];
}

/** Deletes the advertiser's own comment. */
export async function deleteComment(deps: Deps, clientId: string, offerId: string, commentId: string): Promise<void> {
  await requireOffer(deps, clientId, offerId);
  await requireOwnComment(deps, offerId, commentId);
  if (!(await deleteAdvertiserComment(deps.db, offerId, commentId))) throw notFound('comment');
}
