import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
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
 * The service's client and worker connections made from TEMPORAL_TLS_* alone, against a cluster
 * that demands a client certificate: the suite's dev server (which has no TLS) behind a TLS
 * terminator that requires a certificate signed by the test's CA, as an mTLS frontend does. A
 * workflow started by the API's client runs on the worker to its end through it; a client without
 * a certificate is turned away. (The real Temporal server with mTLS: the cluster lane.)
 */

let dir: string;
let certs: Certificates;
let proxy: tls.Server;
let address: string;
const peers: string[] = [];
const refused: string[] = [];
let h: Harness | undefined;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-mtls-'));
  certs = await makeCertificates(dir, { serverNames: ['localhost'], clientName: 'offer-marketplace-worker' });
  const [host, port] = process.env.TEMPORAL_ADDRESS!.split(':');
  proxy = tls.createServer(
    {
      cert: fs.readFileSync(certs.serverCert),
      key: fs.readFileSync(certs.serverKey),
      ca: fs.readFileSync(certs.caCert),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (socket) => {
      peers.push(String(socket.getPeerCertificate().subject?.CN));
      const upstream = net.connect(Number(port), host);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    },
  );
  proxy.on('tlsClientError', (err) => refused.push(err.message));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  address = `localhost:${(proxy.address() as net.AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => proxy.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

it('the API client and the worker connect with the client certificate; a workflow runs to its end', async () => {
  h = await createHarness({
    worker: true,
    env: {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
    },
  });
  expect(h.config.temporal.security).toBe('mTLS');
  const input: IdempotencyKeyPruningInput = {};
  const result: IdempotencyKeyPruningResult = await h.services.temporal.workflow.execute(IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE, {
    taskQueue: h.config.TEMPORAL_TASK_QUEUE,
    workflowId: `mtls-${crypto.randomUUID()}`,
    args: [input],
  });
  expect(result.deleted).toBeGreaterThanOrEqual(0);
  // The client (grpc-js) and the worker (the SDK's Rust core) each came through with the certificate.
  expect(new Set(peers)).toEqual(new Set(['offer-marketplace-worker']));
  expect(peers.length).toBeGreaterThanOrEqual(2);
});

it('a client trusting the CA but without a client certificate is turned away', async () => {
  const config = loadConfig({ ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert });
  const before = refused.length;
  await expect(Connection.connect({ ...temporalConnectionOptions(config.temporal, address), connectTimeout: 5_000 })).rejects.toThrow();
  expect(refused.length).toBeGreaterThan(before);
});
