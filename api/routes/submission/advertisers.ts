import { z } from 'zod';
import { changeAdvertiser, getAdvertiser, listAdvertisers } from '../../../services/advertisers';
import { AdvertiserList, AdvertiserResponse, AdvertiserUpdateBody } from '../../../schemas/advertiser';
import { IdParam } from '../../../schemas/common';
import { listReply, okReply } from '../../../schemas/envelope';
import { PageQuery } from '../../../schemas/pagination';
import { operations, type RoutePlugin } from '../operation';

const op = operations('Advertisers');
const Params = z.object({ advertiser_id: IdParam });

/** The advertisers this client submits offers for, with the ids offers name them by, and each one's time zone. */
export const advertiserRoutes: RoutePlugin = async (app, { deps }) => {
  app.get(
    '/advertisers',
    op('listAdvertisers', "List this client's advertisers", { querystring: PageQuery, response: { 200: AdvertiserList } }),
    async (request) => listReply('advertisers', await listAdvertisers(deps, request.client.id, request.query), request.query),
  );

  app.get(
    '/advertisers/:advertiser_id',
    op('getAdvertiser', 'Get an advertiser', { params: Params, response: { 200: AdvertiserResponse } }),
    async (request) => okReply('advertiser', await getAdvertiser(deps, request.client.id, request.params.advertiser_id)),
  );

  app.put(
    '/advertisers/:advertiser_id',
    op('updateAdvertiser', "Set an advertiser's time zone", {
      params: Params,
      body: AdvertiserUpdateBody,
      response: { 200: AdvertiserResponse },
    }),
    async (request) =>
      okReply('advertiser', await changeAdvertiser(deps, request.client.id, request.params.advertiser_id, request.body.advertiser)),
  );
};
