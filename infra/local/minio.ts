import path from 'node:path';
import { requireFreePort, startProcess, stopLeftover, waitUntilReady } from './child-process';
import { ensureGoBinary, MINIO_SERVER } from './go-binaries';
import { persistedSecret } from './secrets';

/** A local S3 server we started (MinIO or versitygw): where it answers, its root credentials. */
export interface RunningObjectStore {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  stop(): Promise<void>;
}

/** A local MinIO server (real S3 API) keeping objects under DATA_DIR/minio, bound to loopback. */
export async function startLocalMinio(opts: { dataDir: string; port: number }): Promise<RunningObjectStore> {
  const binary = await ensureGoBinary(MINIO_SERVER);
  const pidFile = path.join(opts.dataDir, 'minio.pid');
  await stopLeftover(pidFile);
  await requireFreePort(opts.port, 'EMBEDDED_S3_PORT', 'MinIO');
  const accessKey = 'offer-marketplace';
  const secretKey = persistedSecret(opts.dataDir, 'minio-secret-key');
  const proc = startProcess({
    name: 'minio',
    command: binary,
    args: [
      'server',
      path.join(opts.dataDir, 'minio'),
      '--address',
      `127.0.0.1:${opts.port}`,
      '--console-address',
      '127.0.0.1:0',
      '--quiet',
    ],
    env: { ...process.env, MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey, MINIO_BROWSER: 'off' },
    logDir: path.join(opts.dataDir, 'logs'),
    pidFile,
  });
  const endpoint = `http://127.0.0.1:${opts.port}`;
  await waitUntilReady(proc, async () => (await fetch(`${endpoint}/minio/health/live`)).ok, 60_000);
  return { endpoint, accessKey, secretKey, stop: () => proc.stop() };
}
