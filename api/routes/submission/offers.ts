import { IdParams } from '../../../schemas/common';
import { deadlineResponses, listReply, OkOnly, okReply, okOnlyReply } from '../../../schemas/envelope';
import {
  OfferUpdateBody,
  SubmissionOfferList,
  SubmissionOfferListQuery,
  SubmissionOfferResponse,
  SuppliedVoucherList,
  type OfferUpdate,
} from '../../../schemas/offer';
import { PageQuery } from '../../../schemas/pagination';
import { OfferCreateBody } from '../../../schemas/offer-create';
import { cancelOffer, createOffer, getOffer, listOffers, listSuppliedVouchers, updateOffer } from '../../../services/offers';
import { operations, type RoutePlugin } from '../operation';
import { keyedRequestOf } from '../../plugins/idempotency';

const op = operations('Offers');

/** The advertiser's offers: create, read, edit (when withdrawn), move status, cancel. */
export const offerRoutes: RoutePlugin = async (app, { deps }) => {
  app.post(
    '/offers',
    op('createOffer', 'Submit an offer for review', { body: OfferCreateBody, response: { 200: SubmissionOfferResponse } }),
    async (request) =>
      okReply('offer', await createOffer(deps, request.client.id, request.body.offer, { keyedRequest: keyedRequestOf(request) })),
  );

  app.get(
    '/offers',
    op('listOffers', "List the advertiser's offers", { querystring: SubmissionOfferListQuery, response: { 200: SubmissionOfferList } }),
    async (request) => listReply('offers', await listOffers(deps, request.client.id, request.query), request.query),
  );

  app.get(
    '/offers/:id',
    op('getOffer', 'Get one offer', { params: IdParams, response: { 200: SubmissionOfferResponse } }),
    async (request) => okReply('offer', await getOffer(deps, request.client.id, request.params.id)),
  );

  app.put(
    '/offers/:id',
    op('updateOffer', 'Edit an offer or move its status', {
      params: IdParams,
      body: OfferUpdateBody,
      response: { 200: SubmissionOfferResponse, ...deadlineResponses() },
    }),
    async (request) => okReply('offer', await updateOffer(deps, request.client.id, request.params.id, request.body.offer as OfferUpdate)),
  );

  // Every code the advertiser supplied for the offer (the offer answer shows the first ones only).
  app.get(
    '/offers/:id/supplied_vouchers',
    op('listSuppliedVouchers', "List an offer's supplied voucher codes", {
      params: IdParams,
      querystring: PageQuery,
      response: { 200: SuppliedVoucherList },
    }),
    async (request) =>
      listReply('vouchers', await listSuppliedVouchers(deps, request.client.id, request.params.id, request.query), request.query),
  );

  // DELETE cancels: the offer stays readable (its vouchers refer to it) with status `cancelled`.
  app.delete(
    '/offers/:id',
    op('cancelOffer', 'Cancel an offer', { params: IdParams, response: { 200: OkOnly, ...deadlineResponses() } }),
    (request) => okOnlyReply(cancelOffer(deps, request.client.id, request.params.id)),
  );
};
