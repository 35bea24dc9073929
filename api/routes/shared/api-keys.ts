import { okReply } from '../../../schemas/envelope';
import { ApiKeyList, ApiKeyRollBody, ApiKeyRollResponse } from '../../../schemas/api-key';
import { listApiKeys, rollApiKey } from '../../../services/api-key-rolling';
import { API_KEY_HEADER } from '../../plugins/auth';
import { operations, type RoutePlugin } from '../operation';

const op = operations('ApiKeys');

/**
 * A client's own keys on both interfaces (docs/decisions/0073-api-key-rolling.md): `GET /api_keys`
 * lists them; `POST /api_keys/roll` issues a new key for this client, the key this request came
 * with working on until the expiry it chooses.
 */
export const apiKeyRoutes: RoutePlugin = async (app, { deps }) => {
  app.get('/api_keys', op('listApiKeys', "List this client's API keys", { response: { 200: ApiKeyList } }), async (request) =>
    okReply('api_keys', await listApiKeys(deps, request.client.id)),
  );

  app.post(
    '/api_keys/roll',
    {
      ...op('rollApiKey', 'Roll this API key: a new key, the old one working until its expiry', {
        body: ApiKeyRollBody,
        response: { 201: ApiKeyRollResponse },
      }),
      // The answer holds a new key, shown once: an Idempotency-Key is honoured (one roll) but the answer is never
      // stored, so a retry is 409 idempotency_key_secret_shown (decision 0072), never the key again.
      config: { answersSecret: true },
    },
    async (request, reply) => {
      const { key, api_key, rolled_key } = await rollApiKey(deps, {
        clientId: request.client.id,
        presentedKey: request.headers[API_KEY_HEADER] as string,
        expiresInSeconds: request.body?.api_key?.expires_in_seconds,
      });
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ status: 'OK' as const, api_key: { ...api_key, key }, rolled_key });
    },
  );
};
