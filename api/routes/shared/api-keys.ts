import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiKeyList, ApiKeyRollBody, ApiKeyRollResponse } from '../../../schemas/api-key';
import { listApiKeys, rollApiKey } from '../../../services/api-key-rolling';
import type { ServiceDeps } from '../../../services/deps';
import { invalidField } from '../../errors';
import { API_KEY_HEADER } from '../../plugins/auth';
import { IDEMPOTENCY_HEADER } from '../../plugins/idempotency';
import { operations } from '../operation';

const op = operations('ApiKeys');

/*
 * The roll refuses Idempotency-Key, as developer sign-up does: its answer is a new key, shown once,
 * which a stored answer would keep in the database and a replay would hand out again. A retry
 * without a key cannot roll twice by mistake: the first roll's key is then the only current one,
 * and the old key (the retry's) is refused as rolled away (403).
 */
const ROLL_TAKES_NO_KEY =
  'rolling takes no Idempotency-Key: its answer holds a new API key, which is never stored to be replayed. ' +
  'A retry with the old key after a lost answer is refused (403: rolled away already); the old key keeps working until its expiry';

/**
 * A client's own keys on both interfaces (docs/decisions/0073-api-key-rolling.md): `GET /api_keys`
 * lists them; `POST /api_keys/roll` issues a new key for this client, the key this request came
 * with working on until the expiry it chooses.
 */
export const apiKeyRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  app.get(
    '/api_keys',
    { schema: { ...op('listApiKeys', "List this client's API keys"), response: { 200: ApiKeyList } } },
    async (request) => ({ status: 'OK' as const, api_keys: await listApiKeys(deps, request.client.id) }),
  );

  app.post(
    '/api_keys/roll',
    {
      schema: {
        ...op('rollApiKey', 'Roll this API key: a new key, the old one working until its expiry'),
        body: ApiKeyRollBody,
        response: { 201: ApiKeyRollResponse },
      },
      // Before the scope's Idempotency-Key claim (preValidation): nothing of this answer is ever stored.
      onRequest: async (request) => {
        if (request.headers[IDEMPOTENCY_HEADER] !== undefined) throw invalidField(IDEMPOTENCY_HEADER, ROLL_TAKES_NO_KEY);
      },
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
