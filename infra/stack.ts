import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import { progress } from './logger';
import { startLocalMinio } from './minio';
import type { S3Settings } from './object-store';
import { startEmbeddedPostgres } from './postgres';
import { startTemporalDevServer } from './temporal';

/** Where the three backends answer: given by configuration, or started here. */
export interface Endpoints {
  databaseUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  temporalUiUrl?: string;
  s3: S3Settings;
}

export interface Stack {
  endpoints: Endpoints;
  stop(): Promise<void>;
}

const STACK_FILE = 'stack.json';

/**
 * Brings up whatever the configuration does not point elsewhere: embedded Postgres, the Temporal
 * dev server and MinIO, side by side, each keeping its files in DATA_DIR.
 */
export async function startStack(config: Config): Promise<Stack> {
  fs.mkdirSync(config.DATA_DIR, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const logDir = path.join(config.DATA_DIR, 'logs');
  fs.mkdirSync(logDir, { recursive: true });

  const postgres = async (): Promise<string> => {
    if (config.DATABASE_URL) return config.DATABASE_URL;
    progress(`postgres: starting embedded PostgreSQL on 127.0.0.1:${config.EMBEDDED_POSTGRES_PORT}…`);
    const log = fs.createWriteStream(path.join(logDir, 'postgres.log'), { flags: 'a' });
    const pg = await startEmbeddedPostgres({
      dataDir: config.DATA_DIR,
      port: config.EMBEDDED_POSTGRES_PORT,
      log: (l) => log.write(`${l}\n`),
    });
    stops.push(async () => {
      await pg.stop();
      log.end();
    });
    progress('postgres: ready');
    return pg.url;
  };
  const temporal = async (): Promise<{ address: string; uiUrl?: string }> => {
    if (config.TEMPORAL_ADDRESS) return { address: config.TEMPORAL_ADDRESS };
    progress(`temporal: starting the Temporal dev server on 127.0.0.1:${config.TEMPORAL_DEV_PORT}…`);
    const t = await startTemporalDevServer({
      dataDir: config.DATA_DIR,
      port: config.TEMPORAL_DEV_PORT,
      uiPort: config.TEMPORAL_UI_PORT,
      namespace: config.TEMPORAL_NAMESPACE,
    });
    stops.push(t.stop);
    progress(`temporal: ready (Web UI at ${t.uiUrl})`);
    return t;
  };
  const objectStore = async (): Promise<S3Settings> => {
    const common = { region: config.S3_REGION, bucket: config.S3_BUCKET };
    if (config.S3_ENDPOINT)
      return { endpoint: config.S3_ENDPOINT, accessKey: config.S3_ACCESS_KEY!, secretKey: config.S3_SECRET_KEY!, ...common };
    progress(`minio: starting MinIO on 127.0.0.1:${config.MINIO_PORT}…`);
    const m = await startLocalMinio({ dataDir: config.DATA_DIR, port: config.MINIO_PORT });
    stops.push(m.stop);
    progress('minio: ready');
    return { endpoint: m.endpoint, accessKey: m.accessKey, secretKey: m.secretKey, ...common };
  };

  const stop = async () => {
    fs.rmSync(path.join(config.DATA_DIR, STACK_FILE), { force: true });
    await Promise.allSettled(
      stops
        .splice(0)
        .reverse()
        .map((s) => s()),
    );
  };
  try {
    const [databaseUrl, t, s3] = await Promise.all([postgres(), temporal(), objectStore()]);
    const endpoints: Endpoints = {
      databaseUrl,
      temporalAddress: t.address,
      temporalNamespace: config.TEMPORAL_NAMESPACE,
      temporalUiUrl: t.uiUrl,
      s3,
    };
    return { endpoints, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Records where a running stack answers, so the admin CLI and the tests can reach it. */
export function writeStackFile(dataDir: string, endpoints: Endpoints): void {
  const file = path.join(dataDir, STACK_FILE);
  fs.writeFileSync(file, JSON.stringify({ ...endpoints, pid: process.pid }, null, 2), { mode: 0o600 });
}

/**
 * The endpoints for a process that does not start the stack itself (admin CLI): configuration
 * wins; anything not configured is read from the stack file of a running `npm start`.
 */
export function resolveEndpoints(config: Config): Endpoints {
  const file = path.join(config.DATA_DIR, STACK_FILE);
  const running: Partial<Endpoints> = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  const databaseUrl = config.DATABASE_URL ?? running.databaseUrl;
  const temporalAddress = config.TEMPORAL_ADDRESS ?? running.temporalAddress;
  const s3 = config.S3_ENDPOINT
    ? {
        endpoint: config.S3_ENDPOINT,
        accessKey: config.S3_ACCESS_KEY!,
        secretKey: config.S3_SECRET_KEY!,
        region: config.S3_REGION,
        bucket: config.S3_BUCKET,
      }
    : running.s3;
  if (!databaseUrl || !temporalAddress || !s3) {
    throw new Error(
      `No running stack found in ${config.DATA_DIR} (start it with 'npm start'), and DATABASE_URL / TEMPORAL_ADDRESS / S3_ENDPOINT are not all set.`,
    );
  }
  return { databaseUrl, temporalAddress, temporalNamespace: config.TEMPORAL_NAMESPACE, temporalUiUrl: running.temporalUiUrl, s3 };
}
