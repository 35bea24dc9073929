import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ApiInterface } from '../../../domain/environment';
import type { ServiceDeps } from '../../../services/deps';
import { readEventFeed } from '../../../services/event-feed';
import { EventFeedPage, EventFeedQuery } from '../../../schemas/event-feed';
import { operations } from '../operation';

const op = operations('Events');

/**
 * GET /events on both interfaces (docs/change-feed.md): the changes of the offers this client may
 * see, the same events as its callbacks, paged by `after=next_cursor`.
 */
export const eventFeedRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps; iface: ApiInterface }> = async (app, { deps, iface }) => {
  app.get(
    '/events',
    op('listEvents', 'Read the change feed', { querystring: EventFeedQuery, response: { 200: EventFeedPage } }),
    (request) => readEventFeed(deps, { interface: iface, client_id: request.client.id }, request.query),
  );
};
