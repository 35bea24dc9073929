import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startTemporalCluster, type RunningCluster } from '../../infra/local/temporal-cluster';
import { loadConfig } from '../../platform/config';
import { temporalConnectionOptions } from '../../platform/temporal-connection';
import { KEYWORD_SEARCH_ATTRIBUTES } from '../../worker/search-attributes';
import {
  IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE,
  type IdempotencyKeyPruningInput,
  type IdempotencyKeyPruningResult,
} from '../../workflows/idempotency-key-pruning-messages';
import { makeCertificates } from '../setup/certificates';
import { createHarness, type Harness } from '../setup/harness';

/*
 * The service on a real Temporal server that checks API keys as Temporal Cloud does: the server's
 * default JWT claim mapper and default authorizer (global.authorization), verifying each call's
 * `Authorization: Bearer <JWT>` against a JWKS the test serves, for keys the test makes. A second,
 * small cluster of the lane's server binary (all services in one process, with the internal
 * frontend the system worker uses once authorization is on, its own databases in the lane's
 * Postgres), since the lane's shared cluster lets in its clients by certificate alone. The frontend
 * serves TLS without asking for a client certificate: the API key is the gate.
 */

const NAMESPACE = 'default';
// The default claim mapper's permissions are `<namespace>:<read|write|worker|admin>` (`temporal-system:` for the whole cluster).
const KID = 'test-signing-key';
const signing = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const stranger = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT (RS256) as an issuer makes one: base64url(header).base64url(claims).signature. */
function jwt(claims: { permissions: string[]; exp?: number }, privateKey: crypto.KeyObject = signing.privateKey): string {
  const now = Math.floor(Date.now() / 1000);
  const body = `${base64url({ alg: 'RS256', typ: 'JWT', kid: KID })}.${base64url({ sub: 'offer-marketplace', iat: now, exp: now + 3600, ...claims })}`;
  return `${body}.${crypto.sign('sha256', Buffer.from(body), privateKey).toString('base64url')}`;
}

let dir: string;
let jwks: http.Server;
let cluster: RunningCluster;
let h: Harness | undefined;

/** What the service's processes are given: the cluster's address, its CA and this key; the lane's mTLS settings blanked. */
const serviceEnv = (apiKey: string) => ({
  TEMPORAL_ADDRESS: cluster.address,
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: cluster.clientEnv.TEMPORAL_TLS_SERVER_CA_CERT_PATH,
  TEMPORAL_API_KEY: apiKey,
  TEMPORAL_TLS_CLIENT_CERT_PATH: '',
  TEMPORAL_TLS_CLIENT_KEY_PATH: '',
  TEMPORAL_TLS_SERVER_NAME: '',
});

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-jwt-'));
  const certificates = await makeCertificates(path.join(dir, 'tls'), { serverNames: ['localhost', '127.0.0.1'] });
  // The issuer's public key, as a JWKS (what the server fetches from keySourceURIs).
  const keys = { keys: [{ ...signing.publicKey.export({ format: 'jwk' }), kid: KID, use: 'sig', alg: 'RS256' }] };
  jwks = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keys)));
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  cluster = await startTemporalCluster({
    dataDir: dir,
    postgresUrl: process.env.DATABASE_URL!,
    certificates,
    namespace: NAMESPACE,
    retention: '24h',
    keywordSearchAttributes: KEYWORD_SEARCH_ATTRIBUTES,
    jwtKeySourceUri: `http://127.0.0.1:${(jwks.address() as { port: number }).port}/jwks.json`,
    operatorApiKey: jwt({ permissions: ['temporal-system:admin'] }),
    name: 'temporal_jwt',
    oneProcess: true,
  });
}, 180_000);

afterAll(async () => {
  await h?.close();
  await cluster?.stop();
  await new Promise((resolve) => jwks?.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

it("the service's client and worker, with a JWT holding the namespace's write permission as TEMPORAL_API_KEY, run a workflow to its end", async () => {
  h = await createHarness({ worker: true, env: serviceEnv(jwt({ permissions: [`${NAMESPACE}:write`] })) });
  expect(h.config.temporal.security).toBe('TLS with an API key');
  const input: IdempotencyKeyPruningInput = {};
  const result: IdempotencyKeyPruningResult = await h.services.temporal.workflow.execute(IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE, {
    taskQueue: h.config.TEMPORAL_TASK_QUEUE,
    workflowId: `api-key-jwt-${crypto.randomUUID()}`,
    args: [input],
  });
  expect(result.deleted).toBeGreaterThanOrEqual(0);
});

/** The gRPC status code of the first refusal a client with this key meets: on connecting or on a call in the namespace. */
async function refusal(apiKey: string): Promise<{ code?: number; message: string } | undefined> {
  const config = loadConfig({ ...process.env, ...serviceEnv(apiKey) });
  const codeOf = (err: unknown) => {
    for (let e = err as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
      if (typeof e.code === 'number') return { code: e.code, message: String((e as { details?: string }).details ?? err) };
    return { message: String(err) };
  };
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...temporalConnectionOptions(config.temporal, cluster.address), connectTimeout: 10_000 });
  } catch (err) {
    return codeOf(err);
  }
  try {
    await new Client({ connection, namespace: NAMESPACE }).workflow.count();
    return undefined;
  } catch (err) {
    return codeOf(err);
  } finally {
    await connection.close();
  }
}

const PERMISSION_DENIED = 7;

it.each([
  ['signed by another key', () => jwt({ permissions: [`${NAMESPACE}:admin`] }, stranger.privateKey)],
  ['expired', () => jwt({ permissions: [`${NAMESPACE}:admin`], exp: Math.floor(Date.now() / 1000) - 3600 })],
  ["without the namespace's permission", () => jwt({ permissions: ['another-namespace:admin'] })],
  ['not a JWT', () => 'not-a-jwt'],
  ['absent (TLS alone)', () => ''],
])('a token %s is refused', async (_name, token) => {
  const refused = await refusal(token());
  // The server answers PermissionDenied without saying why (its log does).
  expect(refused).toEqual({ code: PERMISSION_DENIED, message: expect.stringContaining('Request unauthorized') });
});

it('the same client with a valid token is let in (the refusals are the tokens’ doing)', async () => {
  await expect(refusal(jwt({ permissions: [`${NAMESPACE}:read`] }))).resolves.toBeUndefined();
});
