import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okReply } from '../../../schemas/envelope';
import { IdParams } from '../../../schemas/common';
import { OfferReviewResponse } from '../../../schemas/offer-review';
import type { ServiceDeps } from '../../../services/deps';
import { offerReview } from '../../../services/offer-review-view';
import { operations } from '../operation';

const op = operations('Offers');

/** Where an offer's review stands, read from Postgres (decision 0078): steps, place in the queue, expected decision, SLA. */
export const offerReviewRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  app.get(
    '/offers/:id/review',
    op('getOfferReview', "Follow an offer's review", { params: IdParams, response: { 200: OfferReviewResponse } }),
    async (request) => okReply('review', await offerReview(deps, request.client.id, request.params.id)),
  );
};
