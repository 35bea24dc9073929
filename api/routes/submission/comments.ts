import type { FastifyRequest } from 'fastify';
import { createComment, deleteComment, getComment, listComments, updateComment } from '../../../services/comments';
import { CommentCreateBody, CommentList, CommentParams, CommentResponse, CommentUpdateBody } from '../../../schemas/comment';
import { IdParams } from '../../../schemas/common';
import { listReply, OkOnly, okReply, okOnlyReply } from '../../../schemas/envelope';
import { PageQuery } from '../../../schemas/pagination';
import { interfaceBaseUrl } from '../../urls';
import { keyedRequestOf } from '../../plugins/idempotency';
import { operations, type RoutePlugin } from '../operation';

const op = operations('Comments');

/**
 * The thread between advertiser and review team on one offer: GET (paged, oldest first), POST,
 * GET/PUT/DELETE one comment. Review-team comments are listed but read-only (403).
 */
export const commentRoutes: RoutePlugin = async (app, { deps }) => {
  const base = (request: FastifyRequest) => interfaceBaseUrl(request, app.prefix);

  app.get(
    '/offers/:id/comments',
    op('listComments', "List an offer's review thread", {
      params: IdParams,
      querystring: PageQuery,
      response: { 200: CommentList },
    }),
    async (request) =>
      listReply('comments', await listComments(deps, request.client.id, request.params.id, request.query, base(request)), request.query),
  );

  app.post(
    '/offers/:id/comments',
    op('createComment', 'Comment on an offer', {
      params: IdParams,
      body: CommentCreateBody,
      response: { 200: CommentResponse },
    }),
    async (request) =>
      okReply(
        'comment',
        await createComment(deps, request.client.id, request.params.id, request.body.comment, base(request), keyedRequestOf(request)),
      ),
  );

  app.get(
    '/offers/:id/comments/:comment_id',
    op('getComment', 'Get one comment', { params: CommentParams, response: { 200: CommentResponse } }),
    async (request) =>
      okReply('comment', await getComment(deps, request.client.id, request.params.id, request.params.comment_id, base(request))),
  );

  app.put(
    '/offers/:id/comments/:comment_id',
    op('updateComment', 'Edit a comment', { params: CommentParams, body: CommentUpdateBody, response: { 200: CommentResponse } }),
    async (request) => {
      const { id, comment_id } = request.params;
      return okReply('comment', await updateComment(deps, request.client.id, id, comment_id, request.body.comment, base(request)));
    },
  );

  app.delete(
    '/offers/:id/comments/:comment_id',
    op('deleteComment', 'Delete a comment', { params: CommentParams, response: { 200: OkOnly } }),
    (request) => okOnlyReply(deleteComment(deps, request.client.id, request.params.id, request.params.comment_id)),
  );
};
