import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps';

/** Routes of the submission interface (advertisers), mounted under /submission/beta. */
export const submissionRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async () => {};
