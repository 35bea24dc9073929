import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParam } from '../../../schemas/common';
import { listReply } from '../../../schemas/envelope';
import { DistributionOfferList, DistributionOfferQuery, DistributionOfferResponse } from '../../../schemas/distribution-offer';
import type { ServiceDeps } from '../../../services/deps';
import { getVisibleOffer, searchOffers } from '../../../services/distribution-offers';

/** GET /offers (search) and GET /offers/:id on the distribution interface: offers on sale now. */
export const distributionOfferRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  app.get('/offers', { schema: { querystring: DistributionOfferQuery, response: { 200: DistributionOfferList } } }, async (request) =>
    listReply('offers', await searchOffers(deps, request.query), request.query),
  );

  app.get(
    '/offers/:id',
    { schema: { params: z.object({ id: IdParam }), response: { 200: DistributionOfferResponse } } },
    async (request) => ({ status: 'OK' as const, offer: await getVisibleOffer(deps, request.params.id) }),
  );
};
