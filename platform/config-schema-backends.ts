import { z } from 'zod';
import { doc, optionalText, optionalUrl, port, text, unset, whole } from './config-values';
import { temporalSettings } from './config-schema-temporal';

/*
 * The settings of the three backends (Postgres, Temporal, the S3 store) and of the local servers
 * `npm start` runs when they are not given; part of the one schema (config-schema.ts), in its order.
 */

/** The S3 servers `npm start` can run itself when S3_ENDPOINT is unset (docs/decisions/0026-embedded-object-store.md). */
export const EMBEDDED_S3_SERVERS = ['versitygw', 'minio'] as const;
export type EmbeddedS3Server = (typeof EMBEDDED_S3_SERVERS)[number];

export const backendSettings = {
  DATABASE_URL: optionalUrl.meta(
    unset(
      'Any Postgres (`postgres://…`) instead of the embedded one. Over TLS: `?sslmode=verify-full`, with `&sslrootcert=/path/ca.pem` for a CA the system does not trust ' +
        '(a managed Postgres’s bundle), `&sslcert=…&sslkey=…` for a client certificate; those files are checked at start ([deployment.md](deployment.md#postgres-and-s3-over-tls)).',
      '(embedded Postgres)',
      'In every production deployment: the managed or self-run Postgres that keeps the data (the embedded one serves one machine).',
    ),
  ),
  EMBEDDED_POSTGRES_PORT: port
    .default(54329)
    .meta(doc('Port of the embedded Postgres.', 'Another Postgres on the machine holds 54329, or two checkouts run side by side.')),
  DATABASE_POOL_SIZE: whole
    .min(1)
    .max(200)
    .default(10)
    .meta(
      doc(
        'Database connections per process (1–200); size the server for every process’s pool.',
        'Raise it when requests wait for a connection under load; lower it when processes × pool would pass the server’s `max_connections`.',
      ),
    ),
  ...temporalSettings,
  TEMPORAL_TASK_QUEUE: text
    .default('offer-marketplace')
    .meta(
      doc(
        'Task queue of the workers: the same on every process.',
        'Two deployments (staging and production) share one Temporal namespace: each needs its own queue, or their workers take each other’s tasks.',
      ),
    ),
  TEMPORAL_DEV_PORT: port
    .default(7233)
    .meta(
      doc(
        'Port of the local Temporal dev server; its Web UI listens 1000 above.',
        '7233, or its UI port 8233, is taken on the machine (another Temporal dev server).',
      ),
    ),
  TEMPORAL_UI_URL: optionalUrl.meta(
    unset(
      'The Temporal Web UI’s address, for the review console’s links to each offer’s workflow.',
      '(the dev server’s UI)',
      'With a Temporal cluster or Temporal Cloud, so the console’s links open its Web UI rather than a local one that is not there.',
    ),
  ),
  // Object storage: any S3-compatible store, else a local server (docs/decisions/0026-embedded-object-store.md).
  S3_ENDPOINT: optionalUrl.meta(
    unset(
      'Any S3-compatible store (URL) instead of the local S3 server; needs `S3_ACCESS_KEY` and `S3_SECRET_KEY`.',
      '(local S3 server)',
      'In production: the S3 store (AWS S3, or a managed or self-run S3-compatible one) that keeps the attachments durably.',
    ),
  ),
  S3_CA_FILE: optionalText.meta(
    unset(
      'The CA (PEM) that signed an `https://` `S3_ENDPOINT`’s certificate, when the system does not trust it (a private S3 store); trusted instead of the system’s CAs.',
      '(the system’s CAs)',
      'The S3 store’s certificate comes from a private CA (a self-hosted store in an internal network).',
    ),
  ),
  S3_ACCESS_KEY: optionalText.meta(
    doc(
      'Access key of `S3_ENDPOINT`.',
      'With `S3_ENDPOINT`: the store’s credential for this service; change it with `S3_SECRET_KEY` when the key is rotated.',
    ),
  ),
  S3_SECRET_KEY: optionalText.meta(
    doc('Secret key of `S3_ENDPOINT`.', 'With `S3_ACCESS_KEY`; change both together when the key is rotated.'),
  ),
  S3_REGION: text
    .default('us-east-1')
    .meta(doc('Region of the S3 store.', 'The bucket lives in another region: AWS S3 signs and routes requests per region.')),
  S3_BUCKET: z
    .string()
    .min(3)
    .max(63)
    .regex(/^[a-z0-9][a-z0-9.-]+[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('attachments')
    .meta(
      doc(
        'Bucket of the attachments’ bytes, created at start when missing.',
        'Several deployments share one store, or the store’s policy names its buckets (`offers-prod-attachments`).',
      ),
    ),
  EMBEDDED_S3: z
    .enum(EMBEDDED_S3_SERVERS)
    .default('versitygw')
    .meta(
      doc(
        'The local S3 server `npm start` runs when `S3_ENDPOINT` is unset: `versitygw` (the Versity S3 gateway, under `DATA_DIR/versitygw`) ' +
          'or `minio` (under `DATA_DIR/minio`). Each keeps its own files, so switching starts with an empty store ([decision 0026](decisions/0026-embedded-object-store.md)).',
        '`minio` when the Versity gateway cannot be built or run on the machine.',
      ),
    ),
  EMBEDDED_S3_PORT: port
    .default(9000)
    .meta(doc('Port of the local S3 server.', '9000 is taken on the machine (a common port of other S3 servers and of PHP-FPM).')),
};
