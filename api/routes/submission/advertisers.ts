import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServiceDeps } from '../../../services/deps';
import { listAdvertisers } from '../../../services/advertisers';
import { AdvertiserList } from '../../../schemas/advertiser';
import { listReply } from '../../../schemas/envelope';
import { PageQuery } from '../../../schemas/pagination';
import { operations } from '../operation';

const op = operations('Advertisers');

/** `GET /advertisers`: the advertisers this client submits offers for, with the ids offers name them by. */
export const advertiserRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  app.get(
    '/advertisers',
    { schema: { ...op('listAdvertisers', "List this client's advertisers"), querystring: PageQuery, response: { 200: AdvertiserList } } },
    async (request) => listReply('advertisers', await listAdvertisers(deps, request.client.id, request.query), request.query),
  );
};
