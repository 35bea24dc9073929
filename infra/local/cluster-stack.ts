import fs from 'node:fs';
import path from 'node:path';
import type { EmbeddedS3Server } from '../../platform/config';
import { freePort } from '../../platform/free-port';
import { progress } from '../../platform/logger';
import { certificatesIn, makeCertificates, type Certificates } from './certificates';
import { startEmbeddedPostgres } from './postgres';
import { startEmbeddedObjectStore } from './stack';
import { startTemporalCluster, type RunningCluster } from './temporal-cluster';

/** The production layout's backing servers on one machine: Postgres, an S3 server and a Temporal cluster over mTLS. */
export interface ClusterStack {
  cluster: RunningCluster;
  certificates: Certificates;
  /** What the service's processes need to use them: DATABASE_URL, S3_*, and Temporal's TEMPORAL_* (mTLS included). */
  env: Record<string, string>;
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterStackOptions {
  dataDir: string;
  namespace: string;
  retention: string;
  embeddedS3: EmbeddedS3Server;
  keywordSearchAttributes: readonly string[];
  /** How long certificates made on the first start stay valid. */
  certificateDays?: number;
}

/**
 * The cluster's certificates in DATA_DIR/tls: made on the first start (a CA of its own, the
 * services' certificate for `localhost` and 127.0.0.1, one client certificate), reused after.
 */
async function clusterCertificates(dataDir: string, days: number): Promise<Certificates> {
  const dir = path.join(dataDir, 'tls');
  const made = certificatesIn(dir);
  if (fs.existsSync(made.clientCert)) return made;
  progress(`temporal cluster: making a CA and certificates in ${dir}…`);
  return makeCertificates(dir, { days, clientName: 'offer-marketplace' });
}

/**
 * Embedded Postgres (the service's database and the cluster's two), the chosen S3 server and a
 * four-process Temporal cluster with mTLS, each keeping its files in `dataDir`, on free ports;
 * stopped in reverse order.
 */
export async function startClusterStack(o: ClusterStackOptions): Promise<ClusterStack> {
  fs.mkdirSync(o.dataDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  try {
    const pgPort = await freePort();
    // A restart (the chaos run's) needs a clean stop: the cluster's four services keep many connections.
    const start = () => startEmbeddedPostgres({ dataDir: o.dataDir, port: pgPort, stopGraceMs: 15_000 });
    const [certificates, objectStore] = await Promise.all([
      clusterCertificates(o.dataDir, o.certificateDays ?? 2),
      startEmbeddedObjectStore(o.embeddedS3, { dataDir: o.dataDir, port: await freePort() }),
    ]);
    stops.push(objectStore.stop);
    let postgres = await start();
    stops.push(() => postgres.stop());
    const cluster = await startTemporalCluster({ ...o, postgresUrl: postgres.url, certificates });
    stops.push(cluster.stop);
    return {
      cluster,
      certificates,
      env: {
        DATABASE_URL: postgres.url,
        S3_ENDPOINT: objectStore.endpoint,
        S3_ACCESS_KEY: objectStore.accessKey,
        S3_SECRET_KEY: objectStore.secretKey,
        ...cluster.clientEnv,
      },
      stopPostgres: () => postgres.stop(),
      startPostgres: async () => {
        postgres = await start();
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
