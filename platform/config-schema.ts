import { z } from 'zod';
import { SERVICE_ENVIRONMENTS } from '../domain/environment';
import { FEED_RETENTION_DAYS } from '../domain/event-feed';
import { baseUrl, doc, envBoolean, optionalUrl, port, seconds, secretKeyList, text, trustProxy, unset, whole } from './config-values';
import { backendSettings } from './config-schema-backends';
import { workerSettings } from './config-schema-worker';
import { temporalSettings } from './config-schema-temporal';

/** Whole days, 1 to 10 years. */
const days = whole.min(1).max(3650);

export { EMBEDDED_S3_SERVERS, type EmbeddedS3Server } from './config-schema-backends';

/**
 * Every setting the service reads, with its default and its description: each a choice an operator
 * makes (values that are not are fixed in config-fixed.ts). Nothing else in the code base reads
 * settings from `process.env`: the result of `loadConfig` is passed into factories.
 */
export const EnvSchema = z.object({
  PORT: port
    .default(3000)
    .meta(
      doc(
        'Where the API listens (a worker-only process serves `/metrics` and `/health` on it).',
        'Another service holds 3000 on the host, or the platform assigns the port (a container’s or PaaS’s `PORT`).',
      ),
    ),
  HOST: text
    .default('0.0.0.0')
    .meta(
      doc(
        'The address the API listens on.',
        'To listen on one interface only: `127.0.0.1` behind a proxy on the same host, `::` for IPv6.',
      ),
    ),
  SERVICE_ENVIRONMENT: z
    .enum(SERVICE_ENVIRONMENTS)
    .default('sandbox')
    .meta(
      doc(
        '`sandbox` or `production`: the environment this deployment serves; keys of the other are refused (401).',
        '`production` on the deployment that serves live keys and real vouchers; a sandbox for integrators keeps `sandbox`.',
      ),
    ),
  RATE_LIMIT_PER_SECOND: whole
    .min(1)
    .default(3)
    .meta(
      doc(
        'Requests per second per API key, and per client address for requests with a bad or missing key (429 with `Retry-After` beyond); counted in Postgres, so every API process shares the limit.',
        'Partners’ legitimate traffic gets 429s, or the agreed request rate changes; lower it to shield a small database.',
      ),
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
        '`off` to close a sandbox to self-service sign-up, so its keys come from the service team only (a closed beta).',
      ),
    ),
  DATA_DIR: text
    .default('.data')
    .meta(
      doc(
        'Files of the embedded Postgres, Temporal dev server and local S3 server, and their logs (`DATA_DIR/logs`).',
        'To keep the local servers’ data and logs on a persistent volume or a larger disk.',
      ),
    ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .meta(
      doc(
        'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.',
        '`debug` while chasing a fault, `warn` to cut log volume and its cost on a busy deployment.',
      ),
    ),
  ...backendSettings,
  ...workerSettings,
  RUN_API: envBoolean
    .default(true)
    .meta(
      doc(
        'Run the API in this process; `false` for a worker-only process.',
        '`false` on worker processes when API and workers run apart, so workers serve no public API.',
      ),
    ),
  DISTRIBUTOR_REVENUE_PERCENT: z.coerce
    .number()
    .min(0)
    .max(100)
    .default(20)
    .meta(
      doc(
        'The distributor’s share of an offer’s price, in % ([distribution-offers.md](distribution-offers.md#the-representation)).',
        'When the distributor’s commercial terms change: every distribution offer’s price split follows it.',
      ),
    ),
  ACCOUNT_REVENUE_PERCENT: z.coerce
    .number()
    .min(0)
    .max(100)
    .default(50)
    .meta(
      doc(
        'The part of the distributor’s share passed on to its account (the publisher), in %.',
        'When the revenue-share agreement with publishers changes.',
      ),
    ),
  // Limits and timings the spec leaves to us (docs/decisions/).
  ATTACHMENT_MAX_BYTES: whole
    .min(1)
    .default(20 * 1024 * 1024)
    .meta(
      doc(
        'Largest attachment upload, in bytes (20 MiB).',
        'Advertisers need larger files (print-quality PDFs) or storage needs smaller ones; keep `REQUEST_TIMEOUT_SECONDS` long enough for the upload.',
      ),
    ),
  BODY_MAX_BYTES: whole
    .min(1024)
    .default(1024 * 1024)
    .meta(
      doc(
        'Largest JSON or XML request body, in bytes (1 MiB).',
        'Clients get 413 on legitimate large JSON or XML documents (raise it); lower it to bound the memory one request holds.',
      ),
    ),
  REQUEST_TIMEOUT_SECONDS: seconds
    .max(3600)
    .default(60)
    .meta(
      doc(
        'The whole request, headers and body, must arrive within this long, or the connection is closed with 408 `request_timeout` ' +
          '(a body dripped byte by byte holds no connection for minutes). An upload of `ATTACHMENT_MAX_BYTES` needs ~3 Mbit/s at the default; ' +
          'raise it for slower clients. Time spent answering does not count.',
        'Clients on slow links get 408 on large uploads (raise it), or slow-drip clients hold connections too long (lower it).',
      ),
    ),
  REDEMPTION_ROLLBACK_HOURS: whole
    .min(0)
    .max(24 * 366)
    .default(24)
    .meta(
      doc(
        'How long after a voucher redemption the advertiser may roll it back (`POST …/redemptions/:id/rollback`), in hours; 0: never ([vouchers.md](vouchers.md#redemptions)).',
        'When the terms with advertisers allow a longer or shorter correction window, or none (0).',
      ),
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
        'In production, so a database copy does not reveal callback signing secrets; to rotate, put a new key first and keep the old one after it.',
      ),
    ),
  // Data that stops growing (docs/data-retention.md): an hourly Temporal Schedule prunes by these.
  FEED_RETENTION_DAYS: days
    .default(FEED_RETENTION_DAYS)
    .meta(
      doc(
        'How far back the change feed reaches, in days: an older cursor or `since` is answered 410 `gone`; an event is pruned an hour after it leaves this window ([data-retention.md](data-retention.md)).',
        'Integrators sync less often than the window and get 410 (raise it), or the events table grows too large (lower it).',
      ),
    ),
  CALLBACK_DELIVERY_RETENTION_DAYS: days
    .default(30)
    .meta(
      doc(
        'How long a finished callback delivery (delivered, failed or cancelled) and its attempts are kept, in days from when it was made; a pending one is never pruned ([data-retention.md](data-retention.md)).',
        'Support needs delivery history for longer disputes (raise it), or the deliveries table must grow less (lower it).',
      ),
    ),
  BULK_FILES_RETENTION_DAYS: days
    .default(30)
    .meta(
      doc(
        "How long the stored file of a finished voucher import (the uploaded CSV) or voucher export (its CSV) is kept, in days from when it finished; then the hourly pruning deletes it and the export's download answers 410 `gone` ([data-retention.md](data-retention.md)).",
        'Advertisers download exports long after making them (raise it), or uploaded codes must not outlive their import for long (lower it).',
      ),
    ),
  WORKFLOW_ANSWER_TIMEOUT_SECONDS: seconds
    .default(30)
    .meta(
      doc(
        "How long every route that waits for a workflow (orders, reservations, offer status changes and edits, order cancels, the review console's decisions) waits before answering 202 (accepted, still applying) or 503 (not confirmed); see [errors.md](errors.md#answers-past-the-deadline).",
        'A proxy or client gives up sooner (set it below their timeout, so they get 202 or 503 rather than a dropped connection).',
      ),
    ),
  TRUST_PROXY: trustProxy
    .optional()
    .meta(
      unset(
        'The reverse proxies whose `X-Forwarded-*` headers are believed: a hop count (`1`) or addresses/CIDR blocks (`10.0.0.1,10.1.0.0/16`); ' +
          'off, the client is the socket’s peer ([security.md](security.md)).',
        '(off)',
        'Behind a load balancer or reverse proxy, so rate limits and logs see the client’s address and not the proxy’s.',
      ),
    ),
  PUBLIC_BASE_URL: baseUrl
    .optional()
    .meta(
      unset(
        'The address clients reach the API at, e.g. `https://offers.example.com`: the base of absolute URLs such as `download_url` and `print_url`.',
        '(the request’s scheme and Host)',
        'Behind a proxy that rewrites Host or ends TLS, so links such as `download_url` point at the public address.',
      ),
    ),
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(200)
    .optional()
    .meta(
      unset(
        '`/metrics` then needs `Authorization: Bearer <token>` (at least 16 characters).',
        '(`/metrics` answers loopback only)',
        'When a Prometheus on another host scrapes `/metrics`.',
      ),
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl.meta(
    unset(
      'An OTLP/HTTP collector’s base URL (e.g. `http://127.0.0.1:4318`); spans go to `<url>/v1/traces` as JSON ([operations.md](operations.md#traces)).',
      '(no tracing)',
    ),
  ),
  OTEL_SERVICE_NAME: text.max(100).default('offer-marketplace').describe('The `service.name` on every span.'),
});

export type Env = z.infer<typeof EnvSchema>;

/**
 * Settings whose names a standard gives, read by other tools too: Temporal's environment
 * configuration and OpenTelemetry's exporter variables. Every other setting is our own: at most
 * OWN_SETTINGS_MAX of them (decision 0076), each with why an operator would change it (docs/configuration.md).
 */
export const STANDARD_SETTINGS: ReadonlyMap<string, string> = new Map([
  ...Object.keys(temporalSettings).map((name) => [name, 'Temporal’s environment configuration'] as const),
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OpenTelemetry'],
  ['OTEL_SERVICE_NAME', 'OpenTelemetry'],
]);
export const OWN_SETTINGS_MAX = 40;
