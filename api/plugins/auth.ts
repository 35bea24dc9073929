import type { FastifyInstance } from 'fastify';
import type { ApiInterface, ServiceEnvironment } from '../../domain/environment';
import { checkApiKey, type ApiClient, type ApiKeyCache, type KeyRefusal } from '../../services/api-clients';
import { demoRefusal } from '../../services/demo';
import type { ServiceDeps } from '../../services/deps';
import { ApiError, type ErrorCode } from '../errors';

declare module 'fastify' {
  interface FastifyRequest {
    client: ApiClient;
  }
}

export const API_KEY_HEADER = 'x-service-api-key';

/** The answer to each refused key: an unknown, expired (rolled away) key or another environment's is 401, another interface's 403. */
const REFUSAL_STATUS: Record<KeyRefusal, [number, ErrorCode]> = {
  unknown_key: [401, 'unauthorized'],
  expired_key: [401, 'api_key_expired'],
  wrong_environment: [401, 'wrong_environment'],
  wrong_interface: [403, 'wrong_interface'],
};

/**
 * Every request of an interface carries `X-SERVICE-API-KEY`; the key must be live, of this
 * deployment's environment, and issued for this interface.
 */
export async function authPlugin(
  app: FastifyInstance,
  opts: { db: ServiceDeps['db']; iface: ApiInterface; environment: ServiceEnvironment; cache?: ApiKeyCache },
) {
  app.decorateRequest('client', null as unknown as ApiClient);
  app.addHook('onRequest', async (request) => {
    const key = request.headers[API_KEY_HEADER];
    if (typeof key !== 'string' || key.length === 0) throw new ApiError(401, 'unauthorized', 'missing X-SERVICE-API-KEY header');
    const check = await checkApiKey({ db: opts.db }, key, { iface: opts.iface, environment: opts.environment }, opts.cache);
    if (!check.ok) {
      const [status, code] = REFUSAL_STATUS[check.refusal];
      throw new ApiError(status, code, check.message);
    }
    request.client = check.client;
    // The sandbox's shared demonstration key only searches and reads (spec 5.4).
    const refused = check.client.demo ? demoRefusal(request.method, request.routeOptions.url, app.prefix) : undefined;
    if (refused) throw new ApiError(403, 'forbidden', refused);
  });
}
