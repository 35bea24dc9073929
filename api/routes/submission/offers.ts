import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServiceDeps } from '../../../services/deps';
import { findClientOffer, listClientOffers, toSubmissionOffer } from '../../../store/offers-queries';
import { IdParam } from '../../../schemas/common';
import { OkOnly } from '../../../schemas/envelope';
import {
  OfferCreateBody,
  OfferUpdateBody,
  SubmissionOfferList,
  SubmissionOfferListQuery,
  SubmissionOfferResponse,
  type OfferUpdate,
} from '../../../schemas/offer';
import { changeOfferStatus, createOffer, editOffer, requireOffer } from '../../../services/offers';

const Params = z.object({ id: IdParam });

/** The advertiser's offers: create, read, edit (when withdrawn), move status, cancel. */
export const offerRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const answer = async (clientId: string, id: string) => ({
    status: 'OK' as const,
    offer: toSubmissionOffer((await findClientOffer(deps.db, clientId, id))!),
  });

  app.post('/offers', { schema: { body: OfferCreateBody, response: { 200: SubmissionOfferResponse } } }, async (request) => {
    const id = await createOffer(deps, request.client.id, request.body.offer);
    return answer(request.client.id, id);
  });

  app.get('/offers', { schema: { querystring: SubmissionOfferListQuery, response: { 200: SubmissionOfferList } } }, async (request) => {
    const { rows, total } = await listClientOffers(deps.db, request.client.id, request.query);
    return {
      status: 'OK' as const,
      offers: rows.map(toSubmissionOffer),
      page: request.query.page,
      per_page: request.query.per_page,
      total,
    };
  });

  app.get('/offers/:id', { schema: { params: Params, response: { 200: SubmissionOfferResponse } } }, async (request) => {
    await requireOffer(deps, request.client.id, request.params.id);
    return answer(request.client.id, request.params.id);
  });

  app.put(
    '/offers/:id',
    { schema: { params: Params, body: OfferUpdateBody, response: { 200: SubmissionOfferResponse } } },
    async (request) => {
      const row = await requireOffer(deps, request.client.id, request.params.id);
      const { status, ...changes } = request.body.offer as OfferUpdate;
      if (status) await changeOfferStatus(deps, row, status);
      else await editOffer(deps, row, changes);
      return answer(request.client.id, row.id);
    },
  );

  // DELETE cancels: the offer stays readable (its vouchers refer to it) with status `cancelled`.
  app.delete('/offers/:id', { schema: { params: Params, response: { 200: OkOnly } } }, async (request) => {
    const row = await requireOffer(deps, request.client.id, request.params.id);
    if (row.status !== 'cancelled') await changeOfferStatus(deps, row, 'cancelled');
    return { status: 'OK' as const };
  });
};
