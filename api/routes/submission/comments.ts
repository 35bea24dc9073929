import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { deleteAdvertiserComment, insertAdvertiserComment, updateAdvertiserComment } from '../../../store/comments';
import type { ServiceDeps } from '../../../services/deps';
import { ApiError, notFound, type ErrorDetail } from '../../errors';
import { unownedAttachmentIds } from '../../../store/attachments';
import { findOfferComment, listOfferComments, toComments } from '../../../store/comments-queries';
import { findClientOffer } from '../../../store/offers';
import {
  CommentCreateBody,
  CommentList,
  CommentListQuery,
  CommentParams,
  CommentResponse,
  CommentUpdateBody,
  OfferCommentsParams,
} from '../../../schemas/comment';
import { OkOnly } from '../../../schemas/envelope';
import type { Db } from '../../../store/db';
import { interfaceBaseUrl } from './attachments';

/** The offer must be this client's; another client's offer is a 404, as if it did not exist. */
async function requireOffer(db: Db, request: FastifyRequest, offerId: string): Promise<void> {
  if (!(await findClientOffer(db, request.client.id, offerId))) throw notFound('offer');
}

/** 422 naming each attachment reference that is not one of the client's live attachments. */
async function requireOwnAttachments(db: Db, clientId: string, refs: { id: string }[] | undefined): Promise<string[] | undefined> {
  if (!refs) return undefined;
  const ids = refs.map((r) => r.id);
  const unowned = new Set(await unownedAttachmentIds(db, clientId, ids));
  const errors: ErrorDetail[] = ids.flatMap((id, i) =>
    unowned.has(id)
      ? [
          {
            code: 'invalid_field' as const,
            field: `attachments[${i}].id`,
            message: `attachments[${i}].id: ${id} is not one of your attachments`,
          },
        ]
      : [],
  );
  if (errors.length) throw ApiError.withDetails(422, errors);
  return [...new Set(ids)];
}

/** Refuses changes to a review-team comment (403) and reports a missing one (404). */
async function requireOwnComment(db: Db, offerId: string, commentId: string): Promise<void> {
  const row = await findOfferComment(db, offerId, commentId);
  if (!row) throw notFound('comment');
  if (row.author_role !== 'advertiser')
    throw new ApiError(403, 'forbidden', "comments of the review team are part of the offer's record and cannot be changed or deleted");
}

/**
 * The thread between advertiser and review team on one offer: GET (paged, oldest first), POST,
 * GET/PUT/DELETE one comment. Review-team comments are listed but read-only (403).
 */
export const commentRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const { db } = deps;
  const base = (request: FastifyRequest) => interfaceBaseUrl(request, app.prefix);
  const one = async (request: FastifyRequest, row: Parameters<typeof toComments>[2][number]) =>
    (await toComments(db, request.client.id, [row], base(request)))[0];

  app.get(
    '/offers/:id/comments',
    { schema: { params: OfferCommentsParams, querystring: CommentListQuery, response: { 200: CommentList } } },
    async (request) => {
      await requireOffer(db, request, request.params.id);
      const { rows, total } = await listOfferComments(db, request.params.id, request.query);
      const comments = await toComments(db, request.client.id, rows, base(request));
      return { status: 'OK' as const, comments, page: request.query.page, per_page: request.query.per_page, total };
    },
  );

  app.post(
    '/offers/:id/comments',
    { schema: { params: OfferCommentsParams, body: CommentCreateBody, response: { 200: CommentResponse } } },
    async (request) => {
      await requireOffer(db, request, request.params.id);
      const { author_name, content, attachments } = request.body.comment;
      const attachmentIds = (await requireOwnAttachments(db, request.client.id, attachments)) ?? [];
      const row = await insertAdvertiserComment(db, { offerId: request.params.id, authorName: author_name, content, attachmentIds });
      return { status: 'OK' as const, comment: await one(request, row) };
    },
  );

  app.get(
    '/offers/:id/comments/:comment_id',
    { schema: { params: CommentParams, response: { 200: CommentResponse } } },
    async (request) => {
      await requireOffer(db, request, request.params.id);
      const row = await findOfferComment(db, request.params.id, request.params.comment_id);
      if (!row) throw notFound('comment');
      return { status: 'OK' as const, comment: await one(request, row) };
    },
  );

  app.put(
    '/offers/:id/comments/:comment_id',
    { schema: { params: CommentParams, body: CommentUpdateBody, response: { 200: CommentResponse } } },
    async (request) => {
      const { id, comment_id } = request.params;
      await requireOffer(db, request, id);
      await requireOwnComment(db, id, comment_id);
      const { author_name, content, attachments } = request.body.comment;
      const attachmentIds = await requireOwnAttachments(db, request.client.id, attachments);
      const row = await updateAdvertiserComment(db, id, comment_id, { authorName: author_name, content, attachmentIds });
      if (!row) throw notFound('comment'); // deleted in between
      return { status: 'OK' as const, comment: await one(request, row) };
    },
  );

  app.delete('/offers/:id/comments/:comment_id', { schema: { params: CommentParams, response: { 200: OkOnly } } }, async (request) => {
    const { id, comment_id } = request.params;
    await requireOffer(db, request, id);
    await requireOwnComment(db, id, comment_id);
    if (!(await deleteAdvertiserComment(db, id, comment_id))) throw notFound('comment');
    return { status: 'OK' as const };
  });
};
