import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';

/**
 * One server span per request (registered only when OpenTelemetry is configured). It wraps each
 * route's handler rather than using Fastify hooks, because only code run inside the span's
 * context — the handler and the service it calls — makes the span the parent of what follows
 * (the Temporal client interceptor reads the active context and carries it to the workflow).
 */
export default fp(async function tracing(app: FastifyInstance) {
  const tracer = trace.getTracer('offer-marketplace-api');
  app.addHook('onRoute', (route) => {
    const handler = route.handler as (...args: Parameters<RouteHandlerMethod>) => unknown;
    const name = `${route.method.toString()} ${route.url}`;
    route.handler = function traced(this: unknown, request, reply) {
      return tracer.startActiveSpan(
        name,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route.url } },
        async (span) => {
          try {
            const result = await handler.call(this, request, reply);
            span.setAttribute('http.response.status_code', reply.statusCode);
            return result;
          } catch (err) {
            span.recordException(err as Error);
            span.setStatus({ code: SpanStatusCode.ERROR });
            throw err;
          } finally {
            span.end();
          }
        },
      );
    } as RouteHandlerMethod;
  });
});
