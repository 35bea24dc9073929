import { sql } from 'kysely';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServiceDeps } from '../../services/deps';

const CHECK_TIMEOUT_MS = 2000;

async function check(probe: () => Promise<unknown>): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** GET /health (no key): 200 only when Postgres, Temporal and the object store all answer. */
export const healthRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  app.get('/health', async (_request, reply) => {
    const [postgres, temporal, object_store] = await Promise.all([
      check(() => sql`select 1`.execute(deps.db)),
      check(() => deps.temporal.workflowService.getSystemInfo({})),
      check(() => deps.store.client.bucketExists(deps.store.bucket)),
    ]);
    const checks = { postgres, temporal, object_store };
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
