import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps';
import { distributionOfferRoutes } from './offers';

/** Routes of the distribution interface (publishers), mounted under /distribution/beta. */
export const distributionRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  await app.register(distributionOfferRoutes, { deps });
};
