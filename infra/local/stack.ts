import type { Config, EmbeddedS3Server } from '../../platform/config';
import { progress } from '../../platform/logger';
import { configuredS3, removeStackFile, type Endpoints } from '../../platform/endpoints';
import type { S3Settings } from '../../platform/object-store';
import { startLocalMinio, type RunningObjectStore } from './minio';
import { startLocalVersitygw } from './versitygw';
import { startEmbeddedPostgres } from './postgres';
import { secureDataDir } from './data-dir';
import { startTemporalDevServer } from './temporal';

export interface Stack {
  endpoints: Endpoints;
  /** Stops the servers it started; Postgres' fast shutdown gets `postgresGraceMs` before SIGKILL. */
  stop(opts?: { postgresGraceMs?: number }): Promise<void>;
}

/** Starts the chosen local S3 server, keeping its files under dataDir. */
export function startEmbeddedObjectStore(server: EmbeddedS3Server, opts: { dataDir: string; port: number }): Promise<RunningObjectStore> {
  return server === 'minio' ? startLocalMinio(opts) : startLocalVersitygw(opts);
}

/**
 * Brings up whatever the configuration does not point elsewhere: embedded Postgres, the Temporal
 * dev server and an S3 server (versitygw or MinIO), side by side, each keeping its files in DATA_DIR.
 */
export async function startStack(config: Config, opts: { keywordSearchAttributes: readonly string[] }): Promise<Stack> {
  // Owner-only, before any server starts: they inherit the umask (issue 43 item 8).
  secureDataDir(config.DATA_DIR);
  const stopping: Partial<Record<'temporal' | 'objectStore' | 'postgres', (graceMs?: number) => Promise<void>>> = {};

  const postgres = async (): Promise<string> => {
    if (config.DATABASE_URL) return config.DATABASE_URL;
    progress(`postgres: starting embedded PostgreSQL on 127.0.0.1:${config.EMBEDDED_POSTGRES_PORT}…`);
    const pg = await startEmbeddedPostgres({ dataDir: config.DATA_DIR, port: config.EMBEDDED_POSTGRES_PORT });
    stopping.postgres = pg.stop;
    progress('postgres: ready');
    return pg.url;
  };
  const temporal = async (): Promise<{ address: string; uiUrl?: string }> => {
    if (config.TEMPORAL_ADDRESS) {
      progress(`temporal: ${config.TEMPORAL_ADDRESS}, namespace ${config.TEMPORAL_NAMESPACE}, ${config.temporal.security}`);
      return { address: config.TEMPORAL_ADDRESS };
    }
    progress(`temporal: starting the Temporal dev server on 127.0.0.1:${config.TEMPORAL_DEV_PORT}…`);
    const t = await startTemporalDevServer({
      dataDir: config.DATA_DIR,
      port: config.TEMPORAL_DEV_PORT,
      uiPort: config.TEMPORAL_UI_PORT,
      namespace: config.TEMPORAL_NAMESPACE,
      retentionDays: config.TEMPORAL_NAMESPACE_RETENTION_DAYS,
      keywordSearchAttributes: opts.keywordSearchAttributes,
    });
    stopping.temporal = t.stop;
    progress(`temporal: ready (Web UI at ${t.uiUrl})`);
    return t;
  };
  const objectStore = async (): Promise<S3Settings> => {
    const configured = configuredS3(config);
    if (configured) return configured;
    // Progress lines name the server that runs: `versitygw: ready` or `minio: ready`.
    const name = config.EMBEDDED_S3;
    progress(`${name}: starting ${name === 'minio' ? 'MinIO' : 'the Versity S3 gateway'} on 127.0.0.1:${config.EMBEDDED_S3_PORT}…`);
    const m = await startEmbeddedObjectStore(name, { dataDir: config.DATA_DIR, port: config.EMBEDDED_S3_PORT });
    stopping.objectStore = m.stop;
    progress(`${name}: ready`);
    return { endpoint: m.endpoint, accessKey: m.accessKey, secretKey: m.secretKey, region: config.S3_REGION, bucket: config.S3_BUCKET };
  };

  // Side by side: none of the three uses another, and our own clients have closed before this.
  // Postgres' shutdown checkpoint is the slow one (seconds on a busy disk); killed, it leaves its
  // postmaster.pid and must recover at the next start, hence its own grace.
  const stop = async (opts: { postgresGraceMs?: number } = {}) => {
    removeStackFile(config.DATA_DIR);
    const { temporal: t, objectStore: m, postgres: p } = stopping;
    for (const s of Object.keys(stopping)) delete stopping[s as keyof typeof stopping];
    await Promise.allSettled([t?.(), m?.(), p?.(opts.postgresGraceMs)]);
  };
  // Each server starts to its end even when another fails, so that all of them are stopped after.
  const [databaseUrl, t, s3] = await Promise.allSettled([postgres(), temporal(), objectStore()]);
  if (databaseUrl.status === 'rejected' || t.status === 'rejected' || s3.status === 'rejected') {
    await stop();
    throw [databaseUrl, t, s3].map((r) => (r.status === 'rejected' ? r.reason : undefined)).find(Boolean);
  }
  const endpoints: Endpoints = {
    databaseUrl: databaseUrl.value,
    temporalAddress: t.value.address,
    temporalNamespace: config.TEMPORAL_NAMESPACE,
    temporalUiUrl: t.value.uiUrl,
    s3: s3.value,
  };
  return { endpoints, stop };
}
