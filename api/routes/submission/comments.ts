import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createComment, deleteComment, getComment, listComments, updateComment } from '../../../services/comments';
import type { ServiceDeps } from '../../../services/deps';
import {
  CommentCreateBody,
  CommentList,
  CommentListQuery,
  CommentParams,
  CommentResponse,
  CommentUpdateBody,
  OfferCommentsParams,
} from '../../../schemas/comment';
import { listReply, OkOnly, okReply } from '../../../schemas/envelope';
import { interfaceBaseUrl } from '../../urls';
import { keyedRequestOf } from '../../plugins/idempotency';
import { operations } from '../operation';

const op = operations('Comments');

/**
 * The thread between advertiser and review team on one offer: GET (paged, oldest first), POST,
 * GET/PUT/DELETE one comment. Review-team comments are listed but read-only (403).
 */
export const commentRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const base = (request: FastifyRequest) => interfaceBaseUrl(request, app.prefix);

  app.get(
    '/offers/:id/comments',
    op('listComments', "List an offer's review thread", {
      params: OfferCommentsParams,
      querystring: CommentListQuery,
      response: { 200: CommentList },
    }),
    async (request) => {
      const list = await listComments(deps, request.client.id, request.params.id, request.query, base(request));
      return listReply('comments', list, request.query);
    },
  );

  app.post(
    '/offers/:id/comments',
    op('createComment', 'Comment on an offer', {
      params: OfferCommentsParams,
      body: CommentCreateBody,
      response: { 200: CommentResponse },
    }),
    async (request) => {
      const comment = await createComment(
        deps,
        request.client.id,
        request.params.id,
        request.body.comment,
        base(request),
        keyedRequestOf(request),
      );
      return okReply('comment', comment);
    },
  );

  app.get(
    '/offers/:id/comments/:comment_id',
    op('getComment', 'Get one comment', { params: CommentParams, response: { 200: CommentResponse } }),
    async (request) => {
      const { id, comment_id } = request.params;
      return okReply('comment', await getComment(deps, request.client.id, id, comment_id, base(request)));
    },
  );

  app.put(
    '/offers/:id/comments/:comment_id',
    op('updateComment', 'Edit a comment', { params: CommentParams, body: CommentUpdateBody, response: { 200: CommentResponse } }),
    async (request) => {
      const { id, comment_id } = request.params;
      const comment = await updateComment(deps, request.client.id, id, comment_id, request.body.comment, base(request));
      return okReply('comment', comment);
    },
  );

  app.delete(
    '/offers/:id/comments/:comment_id',
    op('deleteComment', 'Delete a comment', { params: CommentParams, response: { 200: OkOnly } }),
    async (request) => {
      const { id, comment_id } = request.params;
      await deleteComment(deps, request.client.id, id, comment_id);
      return { status: 'OK' as const };
    },
  );
};
