import type { ApiInterface } from '../../../domain/environment';
import { readEventFeed } from '../../../services/event-feed';
import { EventFeedPage, EventFeedQuery } from '../../../schemas/event-feed';
import { operations, type RoutePlugin } from '../operation';

const op = operations('Events');

/**
 * GET /events on both interfaces (docs/change-feed.md): the changes of the offers this client may
 * see, the same events as its callbacks, paged by `after=next_cursor`.
 */
export const eventFeedRoutes: RoutePlugin<{ iface: ApiInterface }> = async (app, { deps, iface }) => {
  app.get(
    '/events',
    op('listEvents', 'Read the change feed', { querystring: EventFeedQuery, response: { 200: EventFeedPage } }),
    (request) => readEventFeed(deps, { interface: iface, client_id: request.client.id }, request.query),
  );
};
