/*
 * Values that were settings and are not an operator's choice (decision 0076): each is fixed here,
 * with why. They stay on the Config object so a test or a bench can shorten one (test/setup/harness.ts
 * takes `fixed` overrides); no environment variable sets them. A setting that was removed or renamed
 * and is still set stops the start, naming what replaced it (RETIRED_SETTINGS, checked by loadConfig).
 */

const FIXED_VALUES = {
  /** Seconds before each callback retry: about four days in all, Svix's shape (docs/callbacks.md). */
  CALLBACK_RETRY_SCHEDULE: [5, 300, 1800, 7200, 18000, 36000, 36000],
  /** One callback attempt; a receiver should answer at once and work later (docs/callbacks.md). */
  CALLBACK_TIMEOUT_SECONDS: 15,
  /** An endpoint whose attempts have all failed for 5 days is disabled (Svix's figure). */
  CALLBACK_DISABLE_AFTER_SECONDS: 5 * 24 * 3600,
  /** After `callbacks rotate-secret` the old secret also signs for a day: a receiver deploys the new one meanwhile. */
  CALLBACK_SECRET_OVERLAP_SECONDS: 24 * 3600,
  /** How long an API process trusts a key it has checked: a revoked key works at most this long. */
  API_KEY_CACHE_SECONDS: 5,
  /** How long a voucher export's signed `download_url` works; each GET signs a new one. */
  VOUCHER_EXPORT_LINK_SECONDS: 3600,
  /** A staff member's one-time sign-in link and code (docs/merchant-counter.md). */
  MERCHANT_SIGN_IN_HOURS: 72,
  /** A staff member's session at the counter page: one working day. */
  MERCHANT_SESSION_HOURS: 12,
  /** Sign-up attempts per client address (an IPv6 /64) per hour, page and API together. */
  DEVELOPER_SIGNUPS_PER_HOUR: 5,
  /** Days the local dev server's namespace keeps a closed workflow's history; a cluster's namespace is set by whoever creates it. */
  TEMPORAL_NAMESPACE_RETENTION_DAYS: 7,
  /** Rows of a bulk code import (or codes generated) per transaction: the step progress moves by (docs/bulk-vouchers.md). */
  VOUCHER_IMPORT_BATCH_ROWS: 10_000,
  /**
   * Orders an intake workflow takes before it continues as new (or sooner, when Temporal suggests it):
   * each continue-as-new delays the orders it catches, and a hot offer's batches of 15 ended a run of 100
   * every 7 Updates (decision 0083). Half Temporal's 2000 Updates a run, as each of them may carry one order.
   */
  ORDER_INTAKE_ORDERS_PER_RUN: 1000,
};
export type FixedSettings = typeof FIXED_VALUES;
export const FIXED_SETTINGS: Readonly<FixedSettings> = Object.freeze(FIXED_VALUES);

const FIXED = 'no longer a setting: a fixed value (platform/config-fixed.ts, decision 0076)';
const ON_PATH = 'no longer a setting: put the binary on PATH (else it is built from its Go module)';
const OPERATORS = 'no longer a setting: add each operator with `npm run --silent admin -- ops users add NAME`';

/** Settings removed or renamed, each with what replaced it: set, they stop the start. */
export const RETIRED_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  MINIO_PORT: 'renamed EMBEDDED_S3_PORT',
  TEMPORAL_UI_PORT: 'no longer a setting: the dev server’s Web UI listens on TEMPORAL_DEV_PORT + 1000',
  REQUIRE_HTTPS: 'no longer a setting: SERVICE_ENVIRONMENT=production refuses plain HTTP, a sandbox does not',
  OPS_USERNAME: OPERATORS,
  OPS_PASSWORD: OPERATORS,
  OPS_USERS: OPERATORS,
  TEMPORAL_BIN: ON_PATH,
  TEMPORAL_SERVER_BIN: 'no longer a setting: the server is built from its Go module into the cache once',
  VERSITYGW_BIN: ON_PATH,
  MINIO_BIN: ON_PATH,
  REVIEW_REMINDER_SECONDS:
    'no longer a setting: the review SLA is kept in Postgres, set with `npm run --silent admin -- offers review-sla --hours N` (decision 0078)',
  ...Object.fromEntries(Object.keys(FIXED_SETTINGS).map((name) => [name, FIXED])),
});

/** The retired settings `env` still sets, each as a line naming what replaced it. */
export function retiredSettingsSet(env: Record<string, string | undefined>): string[] {
  return Object.entries(RETIRED_SETTINGS)
    .filter(([name]) => env[name] !== undefined && env[name] !== '')
    .map(([name, instead]) => `${name}: ${instead}`);
}
