import { backendChecks } from '../../services/health';
import type { RoutePlugin } from './operation';

/** GET /health (no key): 200 only when Postgres, Temporal and the object store all answer. */
export const healthRoutes: RoutePlugin = async (app, { deps }) => {
  app.get('/health', async (_request, reply) => {
    const checks = await backendChecks(deps);
    const down = Object.entries(checks)
      .filter(([, s]) => s === 'down')
      .map(([name]) => name);
    if (down.length === 0) return { status: 'OK', checks };
    return reply.status(503).send({
      status: 'ERROR',
      checks,
      errors: down.map((name) => ({ code: 'backend_unavailable', message: `${name} is not answering`, backend: name })),
    });
  });
};
