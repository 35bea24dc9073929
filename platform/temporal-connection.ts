import crypto from 'node:crypto';
import fs from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { loadClientConfigProfile, type ClientConfigProfile, type ConfigDataSource } from '@temporalio/envconfig';
import { temporalSettings } from './config-schema-temporal';

/*
 * How every process reaches Temporal: Temporal's own environment configuration (the variables and
 * the TOML profiles the Temporal CLI and SDKs read, through @temporalio/envconfig), checked once at
 * start by loadConfig (platform/config.ts), so that a missing file or a contradiction stops the
 * process with its variable's name instead of failing on the first call
 * (docs/decisions/0063-temporal-envconfig.md).
 */

/** What a connection to the configured cluster needs beside its address. */
export interface TemporalSettings {
  /** The cluster's `host:port` (TEMPORAL_ADDRESS, else the profile's); unset: the local dev server `npm start` runs. */
  address?: string;
  /** TEMPORAL_NAMESPACE, else the profile's, else `default`. */
  namespace: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  /** gRPC headers (TEMPORAL_GRPC_META_*, a profile's grpc_meta). */
  metadata?: Record<string, string>;
  /** How it authenticates, for the start-up line: `plaintext`, `TLS`, `mTLS` or `TLS with an API key`. */
  security: string;
}

/** What `Connection.connect` and `NativeConnection.connect` take. */
export type TemporalConnectionOptions = Pick<TemporalSettings, 'tls' | 'apiKey' | 'metadata'> & { address: string };

/** The configuration's faults, one line each, naming the variable (or the profile's key). */
export class TemporalSettingsError extends Error {
  constructor(readonly issues: string[]) {
    super(issues.join('\n'));
  }
}

/**
 * The variables handed to envconfig: those of Temporal's environment configuration the schema
 * declares (platform/config-schema-temporal.ts), but the two that choose the config file.
 */
const TEMPORAL_ENV = Object.keys(temporalSettings).filter((k) => k !== 'TEMPORAL_CONFIG_FILE' && k !== 'TEMPORAL_PROFILE');

/** Part of the standard, not honoured here: refused rather than ignored. */
const UNSUPPORTED = {
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'the server certificate is always verified (give its CA: TEMPORAL_TLS_SERVER_CA_CERT_PATH)',
  TEMPORAL_CODEC_ENDPOINT: 'payloads are not encoded by a remote codec',
  TEMPORAL_CODEC_AUTH: 'payloads are not encoded by a remote codec',
} as const;

type Env = Record<string, string | undefined>;

/** The standard variables this service reads, empty ones left out (loadConfig's rule). */
function temporalEnv(env: Env): Record<string, string> {
  const picked = Object.entries(env).filter(
    ([k, v]) => v !== undefined && v !== '' && (TEMPORAL_ENV.includes(k) || k.startsWith('TEMPORAL_GRPC_META_')),
  );
  return Object.fromEntries(picked) as Record<string, string>;
}

/**
 * The profile: the variables over the chosen profile of a config file. A file is read only when
 * TEMPORAL_CONFIG_FILE or TEMPORAL_PROFILE names one (a service does not pick up a person's
 * `~/.config/temporalio/temporal.toml` unasked); TEMPORAL_PROFILE alone means the default file.
 */
function loadProfile(env: Env): ClientConfigProfile {
  const file = env.TEMPORAL_CONFIG_FILE;
  const profile = env.TEMPORAL_PROFILE;
  let configSource: ConfigDataSource | undefined;
  if (file) {
    try {
      configSource = { data: fs.readFileSync(file, 'utf8') };
    } catch (err) {
      throw new TemporalSettingsError([
        `TEMPORAL_CONFIG_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      ]);
    }
  }
  const where = file ?? 'the default Temporal config file (~/.config/temporalio/temporal.toml)';
  try {
    return loadClientConfigProfile({
      profile,
      configSource,
      disableFile: !file && !profile,
      configFileStrict: true,
      overrideEnvVars: temporalEnv(env),
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/^Profile '.*' not found/.test(message)) throw new TemporalSettingsError([`TEMPORAL_PROFILE: no profile '${profile}' in ${where}`]);
    const both = /^Cannot specify both (\w+)_path and/.exec(message);
    if (both) {
      const variable = `TEMPORAL_TLS_${both[1].toUpperCase()}`;
      throw new TemporalSettingsError([`${variable}_PATH, ${variable}_DATA: give the file or its text, not both`]);
    }
    throw new TemporalSettingsError([`TEMPORAL_CONFIG_FILE: ${where} is not a valid Temporal config file: ${message}`]);
  }
}

/** Names a setting as the operator wrote it: the variable when set, else the profile's key. */
function namer(env: Env) {
  const profile = env.TEMPORAL_PROFILE ?? 'default';
  const fromFile = Boolean(env.TEMPORAL_CONFIG_FILE || env.TEMPORAL_PROFILE);
  return (variable: string, key: string) => (env[variable] || !fromFile ? variable : `tls.${key} of profile '${profile}'`);
}

interface Pem {
  label: string;
  bytes: Buffer;
}

/** A certificate or key given by path or by value, read and checked to be PEM. */
function readPem(source: ConfigDataSource | undefined, label: string, issues: string[]): Pem | undefined {
  if (!source) return undefined;
  let bytes: Buffer;
  if ('path' in source) {
    try {
      bytes = fs.readFileSync(source.path);
    } catch (err) {
      issues.push(`${label}: cannot read ${source.path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      return undefined;
    }
  } else bytes = Buffer.from(source.data);
  if (!bytes.includes('-----BEGIN ')) {
    issues.push(`${label}: not a PEM file${'path' in source ? ` (${source.path})` : ''}`);
    return undefined;
  }
  return { label, bytes };
}

/** A client certificate and its key must belong together: Temporal would only say the handshake failed. */
function checkPair(cert: Pem, key: Pem, issues: string[]): boolean {
  let x509: crypto.X509Certificate;
  try {
    x509 = new crypto.X509Certificate(cert.bytes);
  } catch {
    issues.push(`${cert.label}: not a certificate`);
    return false;
  }
  try {
    if (x509.checkPrivateKey(crypto.createPrivateKey(key.bytes))) return true;
    issues.push(`${key.label}: not the key of the certificate in ${cert.label}`);
  } catch {
    issues.push(`${key.label}: not a private key`);
  }
  return false;
}

/** The TLS part of the profile, read and checked; `issues` gets each fault. */
function tlsOf(profile: ClientConfigProfile, env: Env, issues: string[]): TLSConfig | false | undefined {
  const tls = profile.tls;
  if (!tls) return undefined;
  const name = namer(env);
  // A file given by value is named by its _DATA variable, else by its _PATH one (or the profile's key).
  const label = (variable: string, key: string) => name(env[`${variable}_DATA`] ? `${variable}_DATA` : `${variable}_PATH`, key);
  const certLabel = label('TEMPORAL_TLS_CLIENT_CERT', 'client_cert_path');
  const keyLabel = label('TEMPORAL_TLS_CLIENT_KEY', 'client_key_path');
  const caLabel = label('TEMPORAL_TLS_SERVER_CA_CERT', 'server_ca_cert_path');
  if (tls.disabled) {
    const given = [
      tls.clientCert && certLabel,
      tls.clientKey && keyLabel,
      tls.serverCACert && caLabel,
      tls.serverName && 'TEMPORAL_TLS_SERVER_NAME',
    ];
    const contradictions = given.filter(Boolean);
    if (contradictions.length) issues.push(`TEMPORAL_TLS: false, yet ${contradictions.join(', ')} set: turn TLS on or leave them unset`);
    return false;
  }
  if (Boolean(tls.clientCert) !== Boolean(tls.clientKey)) {
    issues.push(`${tls.clientCert ? keyLabel : certLabel}: missing; mTLS needs both the client certificate and its key`);
  }
  const cert = readPem(tls.clientCert, certLabel, issues);
  const key = readPem(tls.clientKey, keyLabel, issues);
  const ca = readPem(tls.serverCACert, caLabel, issues);
  if (ca) {
    try {
      new crypto.X509Certificate(ca.bytes);
    } catch {
      issues.push(`${ca.label}: not a certificate`);
    }
  }
  const pair = cert && key && checkPair(cert, key, issues) ? { crt: cert.bytes, key: key.bytes } : undefined;
  if (pair && profile.apiKey) {
    issues.push(`TEMPORAL_API_KEY and ${certLabel}: authenticate with an API key or with a client certificate (mTLS), not both`);
  }
  return { serverNameOverride: tls.serverName, serverRootCACertificate: ca?.bytes, clientCertPair: pair };
}

/** How the settings authenticate, in words. */
function securityOf(tls: TLSConfig | boolean | undefined, apiKey: string | undefined): string {
  if (!tls) return apiKey ? 'plaintext with an API key' : 'plaintext';
  if (apiKey) return 'TLS with an API key';
  return typeof tls === 'object' && tls.clientCertPair ? 'mTLS' : 'TLS';
}

/**
 * Reads Temporal's environment configuration from `env` (already stripped of empty values) and
 * checks it: files readable and PEM, a client certificate with its key, one way to authenticate,
 * an existing profile. Throws TemporalSettingsError listing every fault.
 */
export function loadTemporalSettings(env: Env): TemporalSettings {
  const issues = Object.entries(UNSUPPORTED)
    .filter(([variable]) => env[variable])
    .map(([variable, why]) => `${variable}: not supported: ${why}`);
  const profile = loadProfile(env);
  const tls = tlsOf(profile, env, issues);
  const apiKey = profile.apiKey;
  // envconfig's rule: an API key turns TLS on unless TLS is turned off.
  const effectiveTls = tls ?? (apiKey ? true : undefined);
  if (!profile.address && (effectiveTls || apiKey || profile.grpcMeta)) {
    issues.push(
      'TEMPORAL_ADDRESS: required with TLS, an API key or gRPC headers (the local dev server `npm start` runs speaks plaintext only)',
    );
  }
  if (issues.length) throw new TemporalSettingsError(issues);
  return {
    address: profile.address,
    namespace: profile.namespace ?? 'default',
    tls: effectiveTls,
    apiKey,
    metadata: profile.grpcMeta,
    security: securityOf(effectiveTls, apiKey),
  };
}

/**
 * The options of a connection to `address` (the configured cluster's, or the local dev server's
 * from the stack file, which the settings then leave plaintext): every client and worker
 * connection of the service is made from these.
 */
export function temporalConnectionOptions(settings: TemporalSettings, address: string): TemporalConnectionOptions {
  return { address, tls: settings.tls, apiKey: settings.apiKey, metadata: settings.metadata };
}
