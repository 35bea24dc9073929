import fs from 'node:fs';
import path from 'node:path';
import { requireFreePort, startProcess, stopLeftover, waitUntilReady } from './child-process';
import { ensureGoBinary, VERSITYGW } from './go-binaries';
import type { RunningObjectStore } from './minio';
import { persistedSecret } from './secrets';

/**
 * A local Versity S3 gateway (real S3 API) over its posix backend: each bucket a folder under
 * DATA_DIR/versitygw/buckets, bound to loopback. Object metadata (content type, ETag) goes to a sidecar
 * folder beside it instead of extended attributes, which some filesystems (overlay, older tmpfs)
 * lack.
 */
export async function startLocalVersitygw(opts: { dataDir: string; port: number }): Promise<RunningObjectStore> {
  const binary = await ensureGoBinary(VERSITYGW);
  const pidFile = path.join(opts.dataDir, 'versitygw.pid');
  await stopLeftover(pidFile);
  await requireFreePort(opts.port, 'EMBEDDED_S3_PORT', 'versitygw');
  // Siblings whose names do not prefix each other: v1.8.0 compares the paths as strings and takes
  // `versitygw-meta` for a folder inside `versitygw`.
  const root = path.join(opts.dataDir, 'versitygw', 'buckets');
  const sidecar = path.join(opts.dataDir, 'versitygw', 'meta');
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  fs.mkdirSync(sidecar, { recursive: true, mode: 0o700 });
  const accessKey = 'offer-marketplace';
  const secretKey = persistedSecret(opts.dataDir, 'versitygw-secret-key');
  const proc = startProcess({
    name: 'versitygw',
    command: binary,
    args: ['--port', `127.0.0.1:${opts.port}`, '--health', '/health', '--quiet', 'posix', '--sidecar', sidecar, root],
    // Credentials through the environment, not argv, so `ps` does not show the secret.
    env: { ...process.env, ROOT_ACCESS_KEY: accessKey, ROOT_SECRET_KEY: secretKey },
    logDir: path.join(opts.dataDir, 'logs'),
    pidFile,
  });
  const endpoint = `http://127.0.0.1:${opts.port}`;
  await waitUntilReady(proc, async () => (await fetch(`${endpoint}/health`)).ok, 60_000);
  return { endpoint, accessKey, secretKey, stop: () => proc.stop() };
}
