import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps';

/** Routes of the distribution interface (publishers), mounted under /distribution/beta. */
export const distributionRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async () => {};
