import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config';
import type { S3Settings } from './object-store';

/** Where the three backends answer: given by configuration, or started here. */
export interface Endpoints {
  databaseUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  temporalUiUrl?: string;
  s3: S3Settings;
}

/** The S3 store the configuration names (S3_ENDPOINT), or undefined: `npm start` then runs one. */
export function configuredS3(config: Config): S3Settings | undefined {
  if (!config.S3_ENDPOINT) return undefined;
  return {
    endpoint: config.S3_ENDPOINT,
    accessKey: config.S3_ACCESS_KEY!,
    secretKey: config.S3_SECRET_KEY!,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET,
    caFile: config.S3_CA_FILE,
  };
}

/** The file in DATA_DIR where a running `npm start` says where its backends answer. */
const STACK_FILE = 'stack.json';

/** Forgets a stopped stack's endpoints. */
export function removeStackFile(dataDir: string): void {
  fs.rmSync(path.join(dataDir, STACK_FILE), { force: true });
}

/**
 * Records where a running stack answers, so the admin CLI and the tests can reach it. It holds the
 * Postgres password and the S3 secret key: owner-only (0600), also when a file from an earlier
 * start exists (`mode` applies only to a file being created), and whole at once (written beside it,
 * then renamed), so a reader waiting for it never reads half of it.
 */
export function writeStackFile(dataDir: string, endpoints: Endpoints): void {
  const file = path.join(dataDir, STACK_FILE);
  const partial = `${file}.partial`;
  fs.writeFileSync(partial, JSON.stringify({ ...endpoints, pid: process.pid }, null, 2), { mode: 0o600 });
  fs.chmodSync(partial, 0o600);
  fs.renameSync(partial, file);
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
  const s3 = configuredS3(config) ?? running.s3;
  if (!databaseUrl || !temporalAddress || !s3) {
    throw new Error(
      `No running stack found in ${config.DATA_DIR} (start it with 'npm start'), and DATABASE_URL / TEMPORAL_ADDRESS / S3_ENDPOINT are not all set.`,
    );
  }
  return { databaseUrl, temporalAddress, temporalNamespace: config.TEMPORAL_NAMESPACE, temporalUiUrl: running.temporalUiUrl, s3 };
}
