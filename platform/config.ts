import path from 'node:path';
import { backendTlsFaults } from './backend-tls';
import { FIXED_SETTINGS, retiredSettingsSet, type FixedSettings } from './config-fixed';
import { EnvSchema, type Env } from './config-schema';
import { loadTemporalSettings, TemporalSettingsError, type TemporalSettings } from './temporal-connection';

// The schema (each setting, its default and description) lives in config-schema.ts; this is the loader.
export { EMBEDDED_S3_SERVERS, type EmbeddedS3Server, type Env } from './config-schema';

export interface Config extends Omit<Env, 'DEVELOPER_SIGNUP' | 'TEMPORAL_NAMESPACE' | 'WORKER_SET_CURRENT'>, FixedSettings {
  /** The cluster's address: TEMPORAL_ADDRESS, else the Temporal profile's; unset, `npm start` runs a dev server. */
  TEMPORAL_ADDRESS?: string;
  /** TEMPORAL_NAMESPACE, else the Temporal profile's, else `default`. */
  TEMPORAL_NAMESPACE: string;
  /** How to reach Temporal (TLS, client certificate, API key), from Temporal's environment configuration, checked. */
  temporal: TemporalSettings;
  /** DATA_DIR made absolute. */
  DATA_DIR: string;
  /** Whether plain HTTP is refused (403): in production only (the suite's requests arrive over plain HTTP). */
  REQUIRE_HTTPS: boolean;
  /** Whether developers may sign up for sandbox keys themselves: DEVELOPER_SIGNUP, on by default in the sandbox, never in production. */
  DEVELOPER_SIGNUP: boolean;
  /** The dev server's Web UI: TEMPORAL_DEV_PORT + 1000, as the Temporal CLI picks it. */
  TEMPORAL_UI_PORT: number;
  /** WORKER_SET_CURRENT: `always` with the local dev server (a restart is the deploy), else `if-none`. */
  WORKER_SET_CURRENT: 'if-none' | 'always' | 'never';
}

/** The configuration's faults, one line each, naming the variable. */
export class ConfigError extends Error {
  constructor(faults: string[]) {
    super(`Invalid configuration:\n${faults.map((f) => `  ${f}`).join('\n')}`);
  }
}

/** Reads and validates the environment once; a wrong value names its variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  // Empty strings count as unset, as shells and compose files often leave them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const retired = retiredSettingsSet(cleaned);
  if (retired.length) throw new ConfigError(retired);
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const e = parsed.data;
  if (e.S3_ENDPOINT && !(e.S3_ACCESS_KEY && e.S3_SECRET_KEY)) {
    throw new ConfigError(['S3_ACCESS_KEY, S3_SECRET_KEY: required when S3_ENDPOINT is set']);
  }
  const tlsFaults = backendTlsFaults(e);
  if (tlsFaults.length) throw new ConfigError(tlsFaults);
  if (e.SERVICE_ENVIRONMENT === 'production' && e.DEVELOPER_SIGNUP === 'on') {
    throw new ConfigError([
      'DEVELOPER_SIGNUP: sign-up issues sandbox keys only; production keys are issued by the service team (spec 5.3)',
    ]);
  }
  const temporal = temporalSettingsOf(cleaned);
  return Object.freeze({
    ...FIXED_SETTINGS,
    ...e,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    temporal,
    TEMPORAL_UI_PORT: e.TEMPORAL_DEV_PORT + 1000,
    REQUIRE_HTTPS: e.SERVICE_ENVIRONMENT === 'production',
    DEVELOPER_SIGNUP: e.SERVICE_ENVIRONMENT === 'sandbox' && e.DEVELOPER_SIGNUP !== 'off',
    WORKER_SET_CURRENT: e.WORKER_SET_CURRENT ?? (temporal.address ? 'if-none' : 'always'),
    DATA_DIR: path.resolve(e.DATA_DIR),
  });
}

/** Temporal's environment configuration (platform/temporal-connection.ts), its faults reported like the others. */
function temporalSettingsOf(env: Record<string, string | undefined>): TemporalSettings {
  try {
    return loadTemporalSettings(env);
  } catch (err) {
    if (!(err instanceof TemporalSettingsError)) throw err;
    throw new ConfigError(err.issues);
  }
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
