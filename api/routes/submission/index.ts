import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps';
import { voucherRoutes } from '../shared/vouchers';

/** Routes of the submission interface (advertisers), mounted under /submission/beta. */
export const submissionRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  await app.register(voucherRoutes, { deps, iface: 'submission' });
};
