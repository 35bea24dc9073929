import { z } from 'zod';
import { port, unset } from './config-values';
import { temporalSettings } from './config-schema-temporal';

/*
 * The settings of the three backends (Postgres, Temporal, the S3 store) and of the local servers
 * `npm start` runs when they are not given; part of the one schema (config-schema.ts), in its order.
 */

/** The S3 servers `npm start` can run itself when S3_ENDPOINT is unset (docs/decisions/0026-embedded-object-store.md). */
export const EMBEDDED_S3_SERVERS = ['versitygw', 'minio'] as const;
export type EmbeddedS3Server = (typeof EMBEDDED_S3_SERVERS)[number];

export const backendSettings = {
  DATABASE_URL: z
    .string()
    .url()
    .optional()
    .meta(
      unset(
        'Any Postgres (`postgres://…`) instead of the embedded one. Over TLS: `?sslmode=verify-full`, with `&sslrootcert=/path/ca.pem` for a CA the system does not trust ' +
          '(a managed Postgres’s bundle), `&sslcert=…&sslkey=…` for a client certificate; those files are checked at start ([deployment.md](deployment.md#postgres-and-s3-over-tls)).',
        '(embedded Postgres)',
      ),
    ),
  EMBEDDED_POSTGRES_PORT: port.default(54329).describe('Port of the embedded Postgres.'),
  DATABASE_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(10)
    .describe('Database connections per process (1–200); size the server for every process’s pool.'),
  ...temporalSettings,
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('offer-marketplace').describe('Task queue of the workers: the same on every process.'),
  TEMPORAL_DEV_PORT: port.default(7233).describe('Port of the local Temporal dev server; its Web UI listens 1000 above.'),
  TEMPORAL_UI_URL: z
    .string()
    .url()
    .optional()
    .meta(unset('The Temporal Web UI’s address, for the review console’s links to each offer’s workflow.', '(the dev server’s UI)')),
  // Object storage: any S3-compatible store, else a local server (docs/decisions/0026-embedded-object-store.md).
  S3_ENDPOINT: z
    .string()
    .url()
    .optional()
    .meta(
      unset(
        'Any S3-compatible store (URL) instead of the local S3 server; needs `S3_ACCESS_KEY` and `S3_SECRET_KEY`.',
        '(local S3 server)',
      ),
    ),
  S3_CA_FILE: z
    .string()
    .min(1)
    .optional()
    .meta(
      unset(
        'The CA (PEM) that signed an `https://` `S3_ENDPOINT`’s certificate, when the system does not trust it (a private S3 store); trusted instead of the system’s CAs.',
        '(the system’s CAs)',
      ),
    ),
  S3_ACCESS_KEY: z.string().min(1).optional().describe('Access key of `S3_ENDPOINT`.'),
  S3_SECRET_KEY: z.string().min(1).optional().describe('Secret key of `S3_ENDPOINT`.'),
  S3_REGION: z.string().min(1).default('us-east-1').describe('Region of the S3 store.'),
  S3_BUCKET: z
    .string()
    .min(3)
    .max(63)
    .regex(/^[a-z0-9][a-z0-9.-]+[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('attachments')
    .describe('Bucket of the attachments’ bytes, created at start when missing.'),
  EMBEDDED_S3: z
    .enum(EMBEDDED_S3_SERVERS)
    .default('versitygw')
    .describe(
      'The local S3 server `npm start` runs when `S3_ENDPOINT` is unset: `versitygw` (the Versity S3 gateway, under `DATA_DIR/versitygw`) ' +
        'or `minio` (under `DATA_DIR/minio`). Each keeps its own files, so switching starts with an empty store ([decision 0026](decisions/0026-embedded-object-store.md)).',
    ),
  EMBEDDED_S3_PORT: port.default(9000).describe('Port of the local S3 server.'),
};
