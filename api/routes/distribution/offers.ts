import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../errors';
import {
  categoryTree,
  findVisibleOffer,
  revenueShares,
  searchDistributionOffers,
  toDistributionOffer,
} from '../../../store/distribution-search';
import { utcDay } from '../../../domain/dates';
import { IdParam } from '../../../schemas/common';
import { DistributionOfferList, DistributionOfferQuery, DistributionOfferResponse } from '../../../schemas/distribution-offer';
import type { ServiceDeps } from '../../../services/deps';

/** GET /offers (search) and GET /offers/:id on the distribution interface: offers on sale now. */
export const distributionOfferRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const shares = revenueShares(deps.config);

  app.get('/offers', { schema: { querystring: DistributionOfferQuery, response: { 200: DistributionOfferList } } }, async (request) => {
    const q = request.query;
    const now = new Date();
    const today = utcDay(now);
    const categories = q.categories || q.category_ids ? await categoryTree(deps.db) : [];
    const { rows, total } = await searchDistributionOffers(deps.db, q, { today, now, categories });
    return {
      status: 'OK' as const,
      offers: rows.map((r) => toDistributionOffer(r, shares, today)),
      page: q.page,
      per_page: q.per_page,
      total,
    };
  });

  app.get(
    '/offers/:id',
    { schema: { params: z.object({ id: IdParam }), response: { 200: DistributionOfferResponse } } },
    async (request) => {
      const today = utcDay();
      const row = await findVisibleOffer(deps.db, request.params.id, today);
      if (!row) throw notFound('offer');
      return { status: 'OK' as const, offer: toDistributionOffer(row, shares, today) };
    },
  );
};
