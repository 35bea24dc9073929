import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { SERVICE_ENVIRONMENTS } from '../domain/environment';
import { parseOperatorUsers } from './passwords';
import { keyId, parseSecretKey } from './secret-box';

/** The S3 servers `npm start` can run itself when S3_ENDPOINT is unset (docs/decisions.md). */
export const EMBEDDED_S3_SERVERS = ['versitygw', 'minio'] as const;
export type EmbeddedS3Server = (typeof EMBEDDED_S3_SERVERS)[number];

/** Booleans in the environment: only these spellings, so a typo is an error and not a silent `false`. */
const envBoolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const port = z.coerce.number().int().min(1).max(65535);
const seconds = z.coerce.number().int().min(1);

/** An IP address or a CIDR block (`10.0.0.0/8`, `fd00::/8`), as Fastify's trustProxy takes them. */
function isAddressOrBlock(s: string): boolean {
  const [addr, bits, ...rest] = s.split('/');
  const family = net.isIP(addr);
  if (!family || rest.length) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/**
 * CALLBACK_SECRET_KEY: one key, or a comma-separated list (current key first). Each entry must be a
 * key, and no key may appear twice (compared by key id, so two spellings of one key count as one).
 * Messages name entries by position, never by value.
 */
function secretKeyList(value: string, ctx: z.RefinementCtx): string[] {
  const entries = value.split(',').map((e) => e.trim());
  const where = (i: number) => (entries.length > 1 ? `key ${i + 1} of ${entries.length}: ` : '');
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (!entry) return ctx.addIssue({ code: 'custom', message: `${where(i)}empty (a stray comma?)` });
    try {
      parseSecretKey(entry);
    } catch (err) {
      return ctx.addIssue({ code: 'custom', message: `${where(i)}${(err as Error).message}` });
    }
    const id = keyId(entry);
    const first = seen.get(id);
    if (first !== undefined) ctx.addIssue({ code: 'custom', message: `key ${i + 1} is the same key as key ${first + 1}` });
    else seen.set(id, i);
  });
  return entries;
}

/**
 * TRUST_PROXY: off when unset (X-Forwarded-* ignored, the client is the socket's peer); a hop count
 * (`1`: one proxy in front); or the proxies' addresses/blocks. Never "trust everyone": that lets any
 * client pick its own address (docs/security.md).
 */
const trustProxy = z.string().transform((s, ctx): number | string[] | false => {
  const v = s.trim();
  if (/^\d{1,2}$/.test(v)) return Number(v) === 0 ? false : Number(v);
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (list.length && list.every(isAddressOrBlock)) return list;
  ctx.addIssue({ code: 'custom', message: 'must be a hop count (e.g. 1) or comma-separated proxy addresses/CIDR blocks' });
  return z.NEVER;
});

/** An absolute http(s) base URL without a trailing slash, e.g. `https://api.example.com`. */
const baseUrl = z
  .string()
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), 'must be an http:// or https:// URL')
  .refine((u) => !/[?#]/.test(u), 'must not hold a query or fragment')
  .transform((u) => u.replace(/\/+$/, ''));

/**
 * Every setting the service reads, with its default. Nothing else in the code base reads
 * `process.env`: the result of `loadConfig` is passed into factories.
 */
const EnvSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  SERVICE_ENVIRONMENT: z.enum(SERVICE_ENVIRONMENTS).default('sandbox'),
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(3),
  // Developer sign-up (spec 5.3): anyone may get a sandbox key pair at /developer/signup. On by
  // default in the sandbox; production cannot turn it on (its keys come from the service team).
  DEVELOPER_SIGNUP: z.enum(['on', 'off']).optional(),
  // Sign-up attempts per client address per hour (page and API together).
  DEVELOPER_SIGNUPS_PER_HOUR: z.coerce.number().int().min(1).max(1000).default(5),
  // Where several API processes keep one shared rate-limit count; unset, each counts in memory.
  REDIS_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Postgres: any server by URL, else an embedded one under DATA_DIR.
  DATABASE_URL: z.string().url().optional(),
  EMBEDDED_POSTGRES_PORT: port.default(54329),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  // Temporal: any cluster by address, else the Temporal CLI dev server under DATA_DIR.
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('offer-marketplace'),
  TEMPORAL_DEV_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  // The Temporal Web UI's address for the console's workflow links; the dev server's when it runs here.
  TEMPORAL_UI_URL: z.string().url().optional(),
  // Object storage: any S3-compatible store by endpoint, else a local server under DATA_DIR: the
  // Versity S3 gateway or MinIO (docs/decisions.md, "Embedded object store").
  S3_ENDPOINT: z.string().url().optional(),
  S3_ACCESS_KEY: z.string().min(1).optional(),
  S3_SECRET_KEY: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_BUCKET: z
    .string()
    .min(3)
    .max(63)
    .regex(/^[a-z0-9][a-z0-9.-]+[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('attachments'),
  EMBEDDED_S3: z.enum(EMBEDDED_S3_SERVERS).default('versitygw'),
  EMBEDDED_S3_PORT: port.optional(),
  // The port's older name, from when the local store was always MinIO; EMBEDDED_S3_PORT wins.
  MINIO_PORT: port.optional(),
  // Whether the API process also runs a Temporal worker (one-machine default); set false to scale them apart.
  RUN_WORKER: envBoolean.default(true),
  RUN_API: envBoolean.default(true),
  // Distribution revenue rule (docs/distribution-search.md): the distributor's share of an offer's
  // price, and the part of that share passed on to the distributor's account (publisher).
  DISTRIBUTOR_REVENUE_PERCENT: z.coerce.number().min(0).max(100).default(20),
  ACCOUNT_REVENUE_PERCENT: z.coerce.number().min(0).max(100).default(50),
  // Limits and timings the spec leaves to us (docs/decisions.md).
  ATTACHMENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(20 * 1024 * 1024),
  BODY_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  REVIEW_REMINDER_SECONDS: seconds.default(3 * 24 * 3600),
  CALLBACK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be comma-separated whole seconds, e.g. 5,300,1800')
    .default('5,300,1800,7200,18000,36000,36000'),
  CALLBACK_TIMEOUT_SECONDS: seconds.default(15),
  // An endpoint whose attempts have all failed for this long is disabled (Svix: 5 days).
  CALLBACK_DISABLE_AFTER_SECONDS: seconds.default(5 * 24 * 3600),
  // After `callbacks rotate-secret`, the old secret also signs for this long (docs/callbacks.md).
  CALLBACK_SECRET_OVERLAP_SECONDS: seconds.default(24 * 3600),
  // Encrypts callback signing secrets at rest (AES-256-GCM; docs/security.md): keys of 32 bytes in
  // base64, comma-separated. The first encrypts what is written; the others only read, during a key
  // rotation. Unset, new secrets are stored in clear; rows encrypted before then need their key.
  CALLBACK_SECRET_KEY: z.string().transform(secretKeyList).optional(),
  // How long the API trusts a key it has checked (0: read it on every request). A revoked key
  // stops working within this time (docs/decisions.md).
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
  // How long POST /orders and POST …/reservations wait for their workflow before answering 503 (the work goes on).
  WORKFLOW_ANSWER_TIMEOUT_SECONDS: seconds.default(30),
  // The review console at /ops (docs/ops-console.md): HTTP Basic auth with this one operator
  // credential. Unset, the console answers 503 and is closed; both must be set together.
  OPS_USERNAME: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[^:]+$/, 'must not contain ":"')
    .optional(),
  OPS_PASSWORD: z.string().min(12, 'must be at least 12 characters').max(200).optional(),
  // Hardening (docs/security.md).
  TRUST_PROXY: trustProxy.optional(),
  // The address clients reach the API at; absolute URLs (download_url) are built from it, not from Host headers.
  PUBLIC_BASE_URL: baseUrl.optional(),
  // Bearer token /metrics requires; unset, /metrics answers only the local machine (loopback peers).
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(200).optional(),
  // OpenTelemetry traces (API → Temporal → activities), off unless an OTLP/HTTP collector is named:
  // its base URL, to which /v1/traces is appended (the OpenTelemetry convention for this variable).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  // The service.name on every span.
  OTEL_SERVICE_NAME: z.string().min(1).max(100).default('offer-marketplace'),
  // Refuse requests that did not arrive over HTTPS (read from a trusted proxy's X-Forwarded-Proto);
  // defaults to true in production.
  REQUIRE_HTTPS: envBoolean.optional(),
  // The console's operators, each signing in as themselves: `name:<hash>` entries, comma-separated,
  // hashes made by `npm run admin -- ops hash-password` (scrypt; docs/ops-console.md).
  OPS_USERS: z
    .string()
    .superRefine((value, ctx) => {
      try {
        parseOperatorUsers(value);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: `${(err as Error).message} (entries are name:hash, hashes from \`npm run admin -- ops hash-password\`)`,
        });
      }
    })
    .optional(),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config extends Omit<
  Env,
  'CALLBACK_RETRY_SCHEDULE' | 'REQUIRE_HTTPS' | 'EMBEDDED_S3_PORT' | 'MINIO_PORT' | 'DEVELOPER_SIGNUP'
> {
  /** DATA_DIR made absolute. */
  DATA_DIR: string;
  CALLBACK_RETRY_SCHEDULE: number[];
  REQUIRE_HTTPS: boolean;
  /** Whether developers may sign up for sandbox keys themselves: DEVELOPER_SIGNUP, on by default in the sandbox, never in production. */
  DEVELOPER_SIGNUP: boolean;
  /** Port of the local object store: EMBEDDED_S3_PORT, else MINIO_PORT, else 9000. */
  EMBEDDED_S3_PORT: number;
}

export class ConfigError extends Error {}

/** Reads and validates the environment once; a wrong value names its variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  // Empty strings count as unset, as shells and compose files often leave them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.S3_ENDPOINT && !(e.S3_ACCESS_KEY && e.S3_SECRET_KEY)) {
    throw new ConfigError('Invalid configuration:\n  S3_ACCESS_KEY, S3_SECRET_KEY: required when S3_ENDPOINT is set');
  }
  if (Boolean(e.OPS_USERNAME) !== Boolean(e.OPS_PASSWORD)) {
    throw new ConfigError(
      'Invalid configuration:\n  OPS_USERNAME, OPS_PASSWORD: set both to open the review console, or neither to keep it closed',
    );
  }
  if (e.SERVICE_ENVIRONMENT === 'production' && e.DEVELOPER_SIGNUP === 'on') {
    throw new ConfigError(
      'Invalid configuration:\n  DEVELOPER_SIGNUP: sign-up issues sandbox keys only; production keys are issued by the service team (spec 5.3)',
    );
  }
  const { MINIO_PORT, ...rest } = e;
  return Object.freeze({
    ...rest,
    EMBEDDED_S3_PORT: e.EMBEDDED_S3_PORT ?? MINIO_PORT ?? 9000,
    REQUIRE_HTTPS: e.REQUIRE_HTTPS ?? e.SERVICE_ENVIRONMENT === 'production',
    DEVELOPER_SIGNUP: e.SERVICE_ENVIRONMENT === 'sandbox' && e.DEVELOPER_SIGNUP !== 'off',
    DATA_DIR: path.resolve(e.DATA_DIR),
    CALLBACK_RETRY_SCHEDULE: e.CALLBACK_RETRY_SCHEDULE.split(',').map(Number),
  });
}

/** For entry points: a bad configuration is reported by variable name and stops the process. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
