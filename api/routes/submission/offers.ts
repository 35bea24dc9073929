import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServiceDeps } from '../../../services/deps';
import { IdParam } from '../../../schemas/common';
import { listReply, OkOnly } from '../../../schemas/envelope';
import {
  OfferCreateBody,
  OfferUpdateBody,
  SubmissionOfferList,
  SubmissionOfferListQuery,
  SubmissionOfferResponse,
  type OfferUpdate,
} from '../../../schemas/offer';
import { cancelOffer, createOffer, getOffer, listOffers, updateOffer } from '../../../services/offers';

const Params = z.object({ id: IdParam });

/** The advertiser's offers: create, read, edit (when withdrawn), move status, cancel. */
export const offerRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  app.post('/offers', { schema: { body: OfferCreateBody, response: { 200: SubmissionOfferResponse } } }, async (request) => ({
    status: 'OK' as const,
    offer: await createOffer(deps, request.client.id, request.body.offer),
  }));

  app.get('/offers', { schema: { querystring: SubmissionOfferListQuery, response: { 200: SubmissionOfferList } } }, async (request) =>
    listReply('offers', await listOffers(deps, request.client.id, request.query), request.query),
  );

  app.get('/offers/:id', { schema: { params: Params, response: { 200: SubmissionOfferResponse } } }, async (request) => ({
    status: 'OK' as const,
    offer: await getOffer(deps, request.client.id, request.params.id),
  }));

  app.put(
    '/offers/:id',
    { schema: { params: Params, body: OfferUpdateBody, response: { 200: SubmissionOfferResponse } } },
    async (request) => ({
      status: 'OK' as const,
      offer: await updateOffer(deps, request.client.id, request.params.id, request.body.offer as OfferUpdate),
    }),
  );

  // DELETE cancels: the offer stays readable (its vouchers refer to it) with status `cancelled`.
  app.delete('/offers/:id', { schema: { params: Params, response: { 200: OkOnly } } }, async (request) => {
    await cancelOffer(deps, request.client.id, request.params.id);
    return { status: 'OK' as const };
  });
};
