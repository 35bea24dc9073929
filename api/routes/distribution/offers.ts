import { z } from 'zod';
import { IdParam, IdParams } from '../../../schemas/common';
import { boundedListReply, okReply } from '../../../schemas/envelope';
import { DistributionOfferList, DistributionOfferQuery, DistributionOfferResponse } from '../../../schemas/distribution-offer';
import { getReadableOffer, readOfferMedium, searchOffers } from '../../../services/distribution-offers';
import { projectingSerializer } from '../../serializers';
import { interfaceBaseUrl } from '../../urls';
import { operations, type RoutePlugin } from '../operation';
import { attachmentBytes } from '../shared/file-responses';

const op = operations('Offers');

/**
 * How long a publisher (or its CDN-less cache) may reuse a medium without asking again. An
 * attachment's bytes never change under its id, so the ETag is the id; `private` because the
 * answer depends on the API key.
 */
const MEDIUM_CACHE_CONTROL = 'private, max-age=86400';

/**
 * GET /offers (search: offers on sale now), GET /offers/:id (on sale, or held by this publisher's
 * orders or reservations) and GET /offers/:id/media/:media_id (the bytes of one of its media).
 */
export const distributionOfferRoutes: RoutePlugin = async (app, { deps }) => {
  const base = (request: Parameters<typeof interfaceBaseUrl>[0]) => interfaceBaseUrl(request, app.prefix);

  app.get(
    '/offers',
    {
      ...op('listOffers', 'Search the offers on sale', { querystring: DistributionOfferQuery, response: { 200: DistributionOfferList } }),
      // The hot path: the offers are shaped by their schema without re-checking each field (api/serializers.ts).
      serializerCompiler: projectingSerializer,
    },
    async (request) => boundedListReply('offers', await searchOffers(deps, request.client.id, request.query, base(request)), request.query),
  );

  app.get(
    '/offers/:id',
    {
      ...op('getOffer', 'Get one offer (on sale, or one this client has bought or reserved)', {
        params: IdParams,
        response: { 200: DistributionOfferResponse },
      }),
      serializerCompiler: projectingSerializer,
    },
    async (request) => okReply('offer', await getReadableOffer(deps, request.client.id, request.params.id, base(request))),
  );

  app.get(
    '/offers/:id/media/:media_id',
    op('getOfferMedium', "Get an offer medium's bytes (an image)", {
      params: z.object({ id: IdParam, media_id: IdParam }),
      response: {
        200: attachmentBytes("The medium's bytes, in its stored type"),
        304: z.any().meta({ type: 'null' }).describe('Not modified: the ETag sent in If-None-Match is current'),
      },
    }),
    async (request, reply) => {
      const { row, body } = await readOfferMedium(deps, request.client.id, request.params.id, request.params.media_id);
      const etag = `"${row.id}"`;
      reply.header('etag', etag).header('cache-control', MEDIUM_CACHE_CONTROL);
      const asked = request.headers['if-none-match'];
      if (asked && asked.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return reply.code(304).send();
      return reply
        .type(row.content_type)
        .header('content-length', String(row.size_bytes))
        .header('content-disposition', 'inline')
        .send(await body());
    },
  );
};
