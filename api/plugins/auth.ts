import type { FastifyInstance } from 'fastify';
import type { ApiClient } from '../../store/database';
import type { Db } from '../../store/db';
import { hashApiKey, type ApiInterface, type ServiceEnvironment } from '../api-keys';
import { ApiError } from '../errors';

declare module 'fastify' {
  interface FastifyRequest {
    client: ApiClient;
  }
}

export const API_KEY_HEADER = 'x-service-api-key';

/**
 * Every request of an interface carries `X-SERVICE-API-KEY`; the key must be live, of this
 * deployment's environment, and issued for this interface.
 */
export async function authPlugin(app: FastifyInstance, opts: { db: Db; iface: ApiInterface; environment: ServiceEnvironment }) {
  app.decorateRequest('client', null as unknown as ApiClient);
  app.addHook('onRequest', async (request) => {
    const key = request.headers[API_KEY_HEADER];
    if (typeof key !== 'string' || key.length === 0) throw new ApiError(401, 'unauthorized', 'missing X-SERVICE-API-KEY header');
    const client = await opts.db
      .selectFrom('api_clients')
      .selectAll()
      .where('key_hash', '=', hashApiKey(key))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!client) throw new ApiError(401, 'unauthorized', 'unknown or revoked API key');
    if (client.environment !== opts.environment) {
      throw new ApiError(401, 'wrong_environment', `this is a ${client.environment} key; this deployment serves ${opts.environment}`);
    }
    if (client.interface !== opts.iface) {
      throw new ApiError(403, 'wrong_interface', `this key is for the ${client.interface} interface, not ${opts.iface}`);
    }
    request.client = client;
  });
}
