import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { httpRequestDuration, registry, scrape } from '../../infra/metrics';

/** Records every answer's latency by route template (not raw URL, so ids don't explode the labels); serves GET /metrics. */
export default fp(async function metrics(app: FastifyInstance) {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return scrape();
  });
});
