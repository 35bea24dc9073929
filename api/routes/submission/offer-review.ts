import { okReply } from '../../../schemas/envelope';
import { IdParams } from '../../../schemas/common';
import { OfferReviewResponse } from '../../../schemas/offer-review';
import { offerReview } from '../../../services/offer-review-view';
import { operations, type RoutePlugin } from '../operation';

const op = operations('Offers');

/** Where an offer's review stands, read from Postgres (decision 0078): steps, place in the queue, expected decision, SLA. */
export const offerReviewRoutes: RoutePlugin = async (app, { deps }) => {
  app.get(
    '/offers/:id/review',
    op('getOfferReview', "Follow an offer's review", { params: IdParams, response: { 200: OfferReviewResponse } }),
    async (request) => okReply('review', await offerReview(deps, request.client.id, request.params.id)),
  );
};
