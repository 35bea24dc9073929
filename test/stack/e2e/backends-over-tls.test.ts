import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { startProcess, waitUntilReady, type ManagedProcess } from '../../../infra/local/child-process';
import { ensureGoBinary, VERSITYGW } from '../../../infra/local/go-binaries';
import { loadConfig } from '../../../platform/config';
import { resolveEndpoints } from '../../../platform/endpoints';
import { freePort } from '../../../platform/free-port';
import { createObjectStore, ensureBucket } from '../../../platform/object-store';
import { createDb, type Db } from '../../../store/db';
import { makeCertificates, type Certificates } from '../../setup/certificates';
import { eventually } from '../../setup/eventually';

/*
 * A managed Postgres over TLS and an S3 store over HTTPS, as docs/deployment.md tells an operator to
 * configure them: the suite's Postgres with `ssl = on` for the length of this file (clients that do
 * not ask for TLS are served as before), and a Versity S3 gateway of this file's own serving HTTPS,
 * both with a certificate for `localhost` signed by a CA the test makes. The service's own data
 * layer and object store connect when given that CA, and refuse a server signed by another CA or
 * named otherwise.
 */

const CERT_REFUSED = /self[- ]signed|unable to (get|verify)|certificate|altnames|does not match/i;

let dir: string;
let certs: Certificates;
let wrong: Certificates;
/** The suite's Postgres (the stack's own database, not a worker's copy). */
const suiteDatabaseUrl = () => process.env.TEST_BASE_DATABASE_URL ?? process.env.DATABASE_URL!;
let s3: { proc: ManagedProcess; endpoint: string; accessKey: string; secretKey: string };
const open: Db[] = [];

/**
 * Turns TLS on in a running Postgres, with the certificate copied into its data folder (owned as
 * Postgres wants its key); without `cert`, turns it off again.
 */
async function setTls(url: string, files?: { cert: string; key: string }): Promise<void> {
  const admin = createDb(url, 1);
  try {
    if (!files) {
      await sql`alter system reset ssl`.execute(admin);
      await sql`select pg_reload_conf()`.execute(admin);
      return;
    }
    const { cert, key } = files;
    const { rows } = await sql<{ data_directory: string }>`show data_directory`.execute(admin);
    const dataDirectory = rows[0].data_directory;
    const owner = fs.statSync(dataDirectory);
    for (const [from, to] of [
      [cert, 'server.crt'],
      [key, 'server.key'],
    ]) {
      fs.copyFileSync(from, path.join(dataDirectory, to));
      fs.chownSync(path.join(dataDirectory, to), owner.uid, owner.gid);
      fs.chmodSync(path.join(dataDirectory, to), 0o600);
    }
    await sql`alter system set ssl_cert_file = 'server.crt'`.execute(admin);
    await sql`alter system set ssl_key_file = 'server.key'`.execute(admin);
    await sql`alter system set ssl = on`.execute(admin);
    await sql`select pg_reload_conf()`.execute(admin);
  } finally {
    await admin.destroy();
  }
}

/** A Versity S3 gateway serving HTTPS with the test's server certificate. */
async function startHttpsS3(): Promise<typeof s3> {
  const root = path.join(dir, 'versitygw', 'buckets');
  const sidecar = path.join(dir, 'versitygw', 'meta');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(sidecar, { recursive: true });
  const port = await freePort();
  const keys = { accessKey: 'tls-test', secretKey: 'tls-test-secret-key-0123456789' };
  const proc = startProcess({
    name: 'versitygw-tls',
    command: await ensureGoBinary(VERSITYGW),
    args: ['--port', `127.0.0.1:${port}`, '--cert', certs.serverCert, '--key', certs.serverKey, '--health', '/health', '--quiet'].concat([
      'posix',
      '--sidecar',
      sidecar,
      root,
    ]),
    env: { ...process.env, ROOT_ACCESS_KEY: keys.accessKey, ROOT_SECRET_KEY: keys.secretKey },
    logDir: path.join(dir, 'logs'),
    pidFile: path.join(dir, 'versitygw-tls.pid'),
  });
  const endpoint = `https://localhost:${port}`;
  const healthy = () =>
    new Promise<boolean>((resolve) => {
      https
        .get(`${endpoint}/health`, { ca: fs.readFileSync(certs.caCert) }, (res) => resolve(res.statusCode === 200))
        .on('error', () => resolve(false));
    });
  await waitUntilReady(proc, healthy, 60_000);
  return { proc, endpoint, ...keys };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backends-tls-'));
  // Only `localhost`: a connection to 127.0.0.1 must then fail verify-full's name check.
  certs = await makeCertificates(path.join(dir, 'certs'), { serverNames: ['localhost'] });
  wrong = await makeCertificates(path.join(dir, 'certs'), { serverNames: ['localhost'], prefix: 'wrong-' });
  await setTls(suiteDatabaseUrl(), { cert: certs.serverCert, key: certs.serverKey });
  s3 = await startHttpsS3();
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(open.map((db) => db.destroy()));
  await Promise.allSettled([setTls(suiteDatabaseUrl()), s3?.proc.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** DATABASE_URL for the test's Postgres with libpq's TLS parameters. */
function databaseUrl(host: string, params: Record<string, string>): string {
  const url = new URL(suiteDatabaseUrl());
  url.hostname = host;
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

/** Whether this session is encrypted, as Postgres sees it, through the service's data layer. */
async function sessionUsesTls(databaseUrlSetting: string): Promise<boolean> {
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrlSetting });
  const db = createDb(config.DATABASE_URL!, 1);
  open.push(db);
  const { rows } = await sql<{ ssl: boolean }>`select ssl from pg_stat_ssl where pid = pg_backend_pid()`.execute(db);
  return rows[0].ssl;
}

describe('Postgres over TLS (DATABASE_URL with sslmode=verify-full and sslrootcert)', () => {
  it('connects with the CA given, the session encrypted', async () => {
    const url = databaseUrl('localhost', { sslmode: 'verify-full', sslrootcert: certs.caCert });
    // pg_reload_conf() is a signal: the postmaster takes the new settings a moment later.
    await eventually('Postgres to serve TLS', () => sessionUsesTls(url).catch(() => false));
    await expect(sessionUsesTls(url)).resolves.toBe(true);
  });

  it('refuses a server whose certificate another CA signed', async () => {
    await expect(sessionUsesTls(databaseUrl('localhost', { sslmode: 'verify-full', sslrootcert: wrong.caCert }))).rejects.toThrow(
      CERT_REFUSED,
    );
  });

  it('refuses a server whose certificate does not carry the host name connected to', async () => {
    await expect(sessionUsesTls(databaseUrl('127.0.0.1', { sslmode: 'verify-full', sslrootcert: certs.caCert }))).rejects.toThrow(
      CERT_REFUSED,
    );
  });
});

describe('an S3 store over HTTPS with a private CA (S3_CA_FILE)', () => {
  const storeWith = (caFile: string) => {
    const config = loadConfig({
      ...process.env,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_CA_FILE: caFile,
      S3_BUCKET: 'tls-attachments',
    });
    return { store: createObjectStore(resolveEndpoints(config).s3), region: config.S3_REGION };
  };

  it('creates the bucket, writes and reads an object', async () => {
    const { store, region } = storeWith(certs.caCert);
    await ensureBucket(store, region);
    await store.client.putObject(store.bucket, 'hello.txt', Buffer.from('over https'));
    const body = await store.client.getObject(store.bucket, 'hello.txt');
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('over https');
  });

  it('refuses the store when the CA given did not sign its certificate', async () => {
    const { store, region } = storeWith(wrong.caCert);
    await expect(ensureBucket(store, region)).rejects.toThrow(CERT_REFUSED);
  });
});
