import { z } from 'zod';
import { SERVICE_ENVIRONMENTS } from '../domain/environment';
import { FEED_RETENTION_DAYS } from '../domain/event-feed';
import { baseUrl, envBoolean, port, seconds, secretKeyList, trustProxy, unset } from './config-values';
import { backendSettings } from './config-schema-backends';
import { workerSettings } from './config-schema-worker';

/** Whole days, 1 to 10 years. */
const days = z.coerce.number().int().min(1).max(3650);

export { EMBEDDED_S3_SERVERS, type EmbeddedS3Server } from './config-schema-backends';

/**
 * Every setting the service reads, with its default and its description: each a choice an operator
 * makes (values that are not are fixed in config-fixed.ts). Nothing else in the code base reads
 * settings from `process.env`: the result of `loadConfig` is passed into factories.
 */
export const EnvSchema = z.object({
  PORT: port.default(3000).describe('Where the API listens (a worker-only process serves `/metrics` and `/health` on it).'),
  HOST: z.string().min(1).default('0.0.0.0').describe('The address the API listens on.'),
  SERVICE_ENVIRONMENT: z
    .enum(SERVICE_ENVIRONMENTS)
    .default('sandbox')
    .describe('`sandbox` or `production`: the environment this deployment serves; keys of the other are refused (401).'),
  RATE_LIMIT_PER_SECOND: z.coerce
    .number()
    .int()
    .min(1)
    .default(3)
    .describe(
      'Requests per second per API key, and per client address for requests with a bad or missing key (429 with `Retry-After` beyond); counted in Postgres, so every API process shares the limit.',
    ),
  // Spec 5.3: production keys come from the service team, so production cannot turn sign-up on.
  DEVELOPER_SIGNUP: z
    .enum(['on', 'off'])
    .optional()
    .meta(
      unset(
        '`on` or `off`: developer sign-up for sandbox key pairs (`/developer/signup`, `POST /developer/beta/signups`). ' +
          'Never on in production (`on` there stops start-up), where its addresses answer 404.',
        '`on` in the sandbox',
      ),
    ),
  DATA_DIR: z
    .string()
    .min(1)
    .default('.data')
    .describe('Files of the embedded Postgres, Temporal dev server and local S3 server, and their logs (`DATA_DIR/logs`).'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.'),
  ...backendSettings,
  ...workerSettings,
  RUN_API: envBoolean.default(true).describe('Run the API in this process; `false` for a worker-only process.'),
  DISTRIBUTOR_REVENUE_PERCENT: z.coerce
    .number()
    .min(0)
    .max(100)
    .default(20)
    .describe('The distributor’s share of an offer’s price, in % ([distribution-offers.md](distribution-offers.md#the-representation)).'),
  ACCOUNT_REVENUE_PERCENT: z.coerce
    .number()
    .min(0)
    .max(100)
    .default(50)
    .describe('The part of the distributor’s share passed on to its account (the publisher), in %.'),
  // Limits and timings the spec leaves to us (docs/decisions/).
  ATTACHMENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(20 * 1024 * 1024)
    .describe('Largest attachment upload, in bytes (20 MiB).'),
  BODY_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024)
    .describe('Largest JSON or XML request body, in bytes (1 MiB).'),
  REQUEST_TIMEOUT_SECONDS: seconds
    .max(3600)
    .default(60)
    .describe(
      'The whole request, headers and body, must arrive within this long, or the connection is closed with 408 `request_timeout` ' +
        '(a body dripped byte by byte holds no connection for minutes). An upload of `ATTACHMENT_MAX_BYTES` needs ~3 Mbit/s at the default; ' +
        'raise it for slower clients. Time spent answering does not count.',
    ),
  REDEMPTION_ROLLBACK_HOURS: z.coerce
    .number()
    .int()
    .min(0)
    .max(24 * 366)
    .default(24)
    .describe(
      'How long after a voucher redemption the advertiser may roll it back (`POST …/redemptions/:id/rollback`), in hours; 0: never ([vouchers.md](vouchers.md#redemptions)).',
    ),
  CALLBACK_SECRET_KEY: z
    .string()
    .transform(secretKeyList)
    .optional()
    .meta(
      unset(
        'Keys of 32 bytes in base64 (`openssl rand -base64 32`), comma-separated: callback signing secrets are stored encrypted (AES-256-GCM) ' +
          'with the first, the current key; the others only read what they encrypted, during a key rotation. A start refuses when a stored ' +
          'secret’s key is missing, naming its key id ([security.md](security.md#rotating-the-key)).',
        '(new secrets stored in clear)',
      ),
    ),
  // Data that stops growing (docs/data-retention.md): an hourly Temporal Schedule prunes by these.
  FEED_RETENTION_DAYS: days
    .default(FEED_RETENTION_DAYS)
    .describe(
      'How far back the change feed reaches, in days: an older cursor or `since` is answered 410 `gone`; an event is pruned an hour after it leaves this window ([data-retention.md](data-retention.md)).',
    ),
  CALLBACK_DELIVERY_RETENTION_DAYS: days
    .default(30)
    .describe(
      'How long a finished callback delivery (delivered, failed or cancelled) and its attempts are kept, in days from when it was made; a pending one is never pruned ([data-retention.md](data-retention.md)).',
    ),
  BULK_FILES_RETENTION_DAYS: days
    .default(30)
    .describe(
      "How long the stored file of a finished voucher import (the uploaded CSV) or voucher export (its CSV) is kept, in days from when it finished; then the hourly pruning deletes it and the export's download answers 410 `gone` ([data-retention.md](data-retention.md)).",
    ),
  WORKFLOW_ANSWER_TIMEOUT_SECONDS: seconds
    .default(30)
    .describe(
      "How long every route that waits for a workflow (orders, reservations, offer status changes and edits, order cancels, the review console's decisions) waits before answering 202 (accepted, still applying) or 503 (not confirmed); see [errors.md](errors.md#answers-past-the-deadline).",
    ),
  TRUST_PROXY: trustProxy
    .optional()
    .meta(
      unset(
        'The reverse proxies whose `X-Forwarded-*` headers are believed: a hop count (`1`) or addresses/CIDR blocks (`10.0.0.1,10.1.0.0/16`); ' +
          'off, the client is the socket’s peer ([security.md](security.md)).',
        '(off)',
      ),
    ),
  PUBLIC_BASE_URL: baseUrl
    .optional()
    .meta(
      unset(
        'The address clients reach the API at, e.g. `https://offers.example.com`: the base of absolute URLs such as `download_url` and `print_url`.',
        '(the request’s scheme and Host)',
      ),
    ),
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(200)
    .optional()
    .meta(unset('`/metrics` then needs `Authorization: Bearer <token>` (at least 16 characters).', '(`/metrics` answers loopback only)')),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .optional()
    .meta(
      unset(
        'An OTLP/HTTP collector’s base URL (e.g. `http://127.0.0.1:4318`); spans go to `<url>/v1/traces` as JSON ([operations.md](operations.md#traces)).',
        '(no tracing)',
      ),
    ),
  OTEL_SERVICE_NAME: z.string().min(1).max(100).default('offer-marketplace').describe('The `service.name` on every span.'),
});

export type Env = z.infer<typeof EnvSchema>;
