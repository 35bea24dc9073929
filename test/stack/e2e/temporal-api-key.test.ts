import crypto from 'node:crypto';
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { loadConfig } from '../../../platform/config';
import { temporalConnectionOptions } from '../../../platform/temporal-connection';
import {
  IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE,
  type IdempotencyKeyPruningInput,
  type IdempotencyKeyPruningResult,
} from '../../../workflows/idempotency-key-pruning-messages';
import { makeCertificates, type Certificates } from '../../setup/certificates';
import { createHarness, type Harness } from '../../setup/harness';

/*
 * The service's connections made from TEMPORAL_API_KEY (and the server's CA), against a frontend
 * that serves TLS and answers only calls carrying `Authorization: Bearer <the key>`, as Temporal
 * Cloud does: the suite's dev server behind a gRPC (HTTP/2) proxy of the test's that checks the
 * header on every call. A workflow started by the API's client runs on the worker to its end; a
 * wrong key is refused. (The real server's JWT authorizer with an API key: the cluster lane.)
 */

const KEY = `test-key-${crypto.randomUUID()}`;
let dir: string;
let certs: Certificates;
let frontend: http2.Http2SecureServer;
let upstream: http2.ClientHttp2Session;
const sessions = new Set<http2.ServerHttp2Session>();
let address: string;
const keysSeen = new Map<string, number>();
let h: Harness | undefined;

/** Answers a call with a gRPC status and no body (trailers-only). */
function refuse(stream: http2.ServerHttp2Stream, code: number, message: string) {
  stream.respond(
    { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': message },
    { endStream: true },
  );
}

/** Forwards one gRPC call to the dev server: request body, response headers, body and trailers. */
function forward(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) {
  const auth = String(headers.authorization ?? '(none)');
  keysSeen.set(auth, (keysSeen.get(auth) ?? 0) + 1);
  if (auth !== `Bearer ${KEY}`) return refuse(stream, 16, 'Request unauthenticated');
  const request = upstream.request({ ...headers });
  let trailers: http2.IncomingHttpHeaders = {};
  request.on('response', (responseHeaders, flags) => {
    // A trailers-only answer (a gRPC error) ends with its headers.
    const ended = (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0;
    stream.respond(responseHeaders, ended ? { endStream: true } : { waitForTrailers: true });
    if (!ended) request.pipe(stream);
  });
  request.on('trailers', (t) => (trailers = t));
  stream.on('wantTrailers', () => stream.sendTrailers(trailers));
  stream.pipe(request);
  request.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
  stream.on('error', () => request.close(http2.constants.NGHTTP2_CANCEL));
  stream.on('close', () => request.close());
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-api-key-'));
  certs = await makeCertificates(dir, { serverNames: ['localhost'] });
  upstream = http2.connect(`http://${process.env.TEMPORAL_ADDRESS!}`);
  frontend = http2.createSecureServer({ cert: fs.readFileSync(certs.serverCert), key: fs.readFileSync(certs.serverKey) });
  frontend.on('stream', forward);
  frontend.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => frontend.listen(0, '127.0.0.1', resolve));
  address = `localhost:${(frontend.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  await h?.close();
  // Clients keep their sessions open: closed here, so that the frontend can stop.
  for (const session of sessions) session.destroy();
  upstream.destroy();
  await new Promise((resolve) => frontend.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

it('the API client and the worker send the API key on every call over TLS; a workflow runs to its end', async () => {
  h = await createHarness({
    worker: true,
    env: { TEMPORAL_ADDRESS: address, TEMPORAL_API_KEY: KEY, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert },
  });
  expect(h.config.temporal.security).toBe('TLS with an API key');
  const input: IdempotencyKeyPruningInput = {};
  const result: IdempotencyKeyPruningResult = await h.services.temporal.workflow.execute(IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE, {
    taskQueue: h.config.TEMPORAL_TASK_QUEUE,
    workflowId: `api-key-${crypto.randomUUID()}`,
    args: [input],
  });
  expect(result.deleted).toBeGreaterThanOrEqual(0);
  // Every call the client and the worker made (polls, completions, the start and its result) carried the key.
  expect([...keysSeen.keys()]).toEqual([`Bearer ${KEY}`]);
  expect(keysSeen.get(`Bearer ${KEY}`)).toBeGreaterThan(3);
});

it('a wrong key is refused', async () => {
  const config = loadConfig({
    ...process.env,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_API_KEY: 'wrong',
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
  });
  // Connection.connect asks for the server's system info: the frontend answers Unauthenticated (16).
  const failure = await Connection.connect({ ...temporalConnectionOptions(config.temporal, address), connectTimeout: 5_000 }).then(
    () => undefined,
    (err: Error) => err,
  );
  expect(failure?.message).toBe('Failed to connect to Temporal server');
  expect(failure?.cause).toMatchObject({ code: 16 });
  expect(keysSeen.get('Bearer wrong')).toBeGreaterThanOrEqual(1);
});
