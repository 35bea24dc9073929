import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors';
import { redactUrl } from '../../platform/redaction';
import { httpRequestDuration, observeQueues, registry, scrape } from '../../platform/metrics';
import type { ServiceDeps } from '../../services/deps';
import { prunedTablesSnapshot, queueSnapshot } from '../../services/metrics';
import { countStuckWorkflows } from '../../services/stuck-workflows';
import { withinDeadline } from '../../services/workflow-outcomes';
import { observeStuckWorkflows } from '../../platform/stuck-work-metrics';
import { observePrunedTables } from '../../platform/retention-metrics';

const sameSecret = (given: string, expected: string) =>
  crypto.timingSafeEqual(crypto.createHash('sha256').update(given).digest(), crypto.createHash('sha256').update(expected).digest());

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * One log line and one histogram sample per answer, by route template (not the raw URL, so ids do
 * not explode the labels); the log line carries the request id and, once authenticated, the client
 * id (never the key). Serves GET /metrics.
 */
export default fp(async function metrics(app: FastifyInstance, opts: { token?: string; deps: Pick<ServiceDeps, 'db' | 'temporal'> }) {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    httpRequestDuration.observe({ method: request.method, route, status: String(status) }, reply.elapsedTime / 1000);
    const line = {
      client_id: request.client?.id,
      method: request.method,
      route,
      // Redacted here too, so the line is clean whatever logger the app was given.
      url: redactUrl(request.url),
      status,
      latency_ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (status >= 500) request.log.error(line, 'request completed');
    else request.log.info(line, 'request completed');
  });
  // Metrics name routes, clients' volumes and the worker's state: with METRICS_TOKEN set they need
  // `Authorization: Bearer <token>`; without one, only the machine itself (a loopback peer) may scrape.
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (opts.token) {
      const m = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
      if (!m || !sameSecret(m[1], opts.token))
        throw new ApiError(401, 'unauthorized', '/metrics needs Authorization: Bearer <METRICS_TOKEN>');
    } else if (!LOOPBACK.test(request.socket.remoteAddress ?? '')) {
      throw new ApiError(403, 'forbidden', '/metrics answers the local machine only unless METRICS_TOKEN is set');
    }
    observeQueues(await queueSnapshot(opts.deps));
    observePrunedTables(await prunedTablesSnapshot(opts.deps));
    // Stuck workflows are counted through Temporal: a scrape still answers (without them) while it is away.
    await withinDeadline(opts.deps.temporal, () => countStuckWorkflows(opts.deps), 2, { message: 'Temporal did not answer' }).then(
      observeStuckWorkflows,
      (err: unknown) => request.log.warn({ err }, 'stuck workflows not counted'),
    );
    reply.type(registry.contentType);
    return scrape();
  });
});
