import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { httpRequestDuration, registry, scrape } from '../../infra/metrics';

/**
 * One log line and one histogram sample per answer, by route template (not the raw URL, so ids do
 * not explode the labels); the log line carries the request id and, once authenticated, the client
 * id (never the key). Serves GET /metrics.
 */
export default fp(async function metrics(app: FastifyInstance) {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    httpRequestDuration.observe({ method: request.method, route, status: String(status) }, reply.elapsedTime / 1000);
    const line = {
      client_id: request.client?.id,
      method: request.method,
      route,
      url: request.url,
      status,
      latency_ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (status >= 500) request.log.error(line, 'request completed');
    else request.log.info(line, 'request completed');
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return scrape();
  });
});
