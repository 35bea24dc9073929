import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../platform/config';
import { temporalConnectionOptions } from '../../platform/temporal-connection';
import { makeCertificates, type Certificates } from '../setup/certificates';

/*
 * Temporal's environment configuration as loadConfig reads it: what each setting becomes in the
 * connection options, and each fault refused at start with the variable that holds it.
 */

let dir: string;
let certs: Certificates;
let other: Certificates;
const ADDRESS = 'temporal.example.com:7233';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-connection-'));
  certs = await makeCertificates(dir);
  other = await makeCertificates(dir, { prefix: 'other-' });
}, 30_000);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
};

const profileFile = (toml: string): string => {
  const file = path.join(dir, `profile-${Math.random().toString(36).slice(2)}.toml`);
  fs.writeFileSync(file, toml);
  return file;
};

describe('Temporal connection settings', () => {
  it('without TEMPORAL_ADDRESS: the local dev server, namespace default, plaintext (npm start as before)', () => {
    const c = loadConfig({});
    expect(c.TEMPORAL_ADDRESS).toBeUndefined();
    expect(c.TEMPORAL_NAMESPACE).toBe('default');
    expect(temporalConnectionOptions(c.temporal, '127.0.0.1:7233')).toEqual({ address: '127.0.0.1:7233' });
    expect(c.temporal.security).toBe('plaintext');
  });

  it('mTLS: the client certificate pair, the server CA and the server name reach the connection options', () => {
    const c = loadConfig({
      TEMPORAL_ADDRESS: ADDRESS,
      TEMPORAL_NAMESPACE: 'offers',
      TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
    });
    const options = temporalConnectionOptions(c.temporal, c.TEMPORAL_ADDRESS!);
    expect(options).toMatchObject({ address: ADDRESS, tls: { serverNameOverride: 'localhost' } });
    const tls = options.tls as { clientCertPair: { crt: Buffer; key: Buffer }; serverRootCACertificate: Buffer };
    expect(Buffer.from(tls.clientCertPair.crt).equals(fs.readFileSync(certs.clientCert))).toBe(true);
    expect(Buffer.from(tls.clientCertPair.key).equals(fs.readFileSync(certs.clientKey))).toBe(true);
    expect(Buffer.from(tls.serverRootCACertificate).equals(fs.readFileSync(certs.caCert))).toBe(true);
    expect(c.TEMPORAL_NAMESPACE).toBe('offers');
    expect(c.temporal.security).toBe('mTLS');
  });

  it('an API key turns TLS on (the system CAs), as Temporal Cloud needs', () => {
    const c = loadConfig({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_API_KEY: 'key-123' });
    expect(temporalConnectionOptions(c.temporal, ADDRESS)).toEqual({ address: ADDRESS, tls: true, apiKey: 'key-123' });
    expect(c.temporal.security).toBe('TLS with an API key');
  });

  it('reads a profile of TEMPORAL_CONFIG_FILE; the variables override its values', () => {
    const file = profileFile(
      `[profile.cloud]\naddress = "${ADDRESS}"\nnamespace = "ns.acct"\napi_key = "from-file"\n\n[profile.other]\naddress = "elsewhere:7233"\n`,
    );
    const c = loadConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud' });
    expect(c).toMatchObject({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_NAMESPACE: 'ns.acct' });
    expect(c.temporal.apiKey).toBe('from-file');
    const overridden = loadConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud', TEMPORAL_NAMESPACE: 'ns2.acct' });
    expect(overridden.TEMPORAL_NAMESPACE).toBe('ns2.acct');
  });

  it('takes the certificate and key as PEM text (TEMPORAL_TLS_*_DATA), and TLS files named by a profile', () => {
    const c = loadConfig({
      TEMPORAL_ADDRESS: ADDRESS,
      TEMPORAL_TLS_CLIENT_CERT_DATA: fs.readFileSync(certs.clientCert, 'utf8'),
      TEMPORAL_TLS_CLIENT_KEY_DATA: fs.readFileSync(certs.clientKey, 'utf8'),
    });
    expect(c.temporal.security).toBe('mTLS');
    const file = profileFile(
      `[profile.prod]\naddress = "${ADDRESS}"\n[profile.prod.tls]\nclient_cert_path = "${certs.clientCert}"\nclient_key_path = "${certs.clientKey}"\nserver_ca_cert_path = "${certs.caCert}"\n`,
    );
    expect(loadConfig({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' }).temporal.security).toBe('mTLS');
    const missing = profileFile(
      `[profile.prod]\naddress = "${ADDRESS}"\n[profile.prod.tls]\nserver_ca_cert_path = "/nonexistent/ca.pem"\n`,
    );
    expect(refusal({ TEMPORAL_CONFIG_FILE: missing, TEMPORAL_PROFILE: 'prod' })).toContain(
      "tls.server_ca_cert_path of profile 'prod': cannot read /nonexistent/ca.pem (ENOENT)",
    );
  });

  it('refuses a profile that is not in the file', () => {
    const file = profileFile(`[profile.default]\naddress = "${ADDRESS}"\n`);
    expect(refusal({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' })).toMatch(/TEMPORAL_PROFILE: no profile 'prod' in .*profile-/);
  });

  it('refuses a config file that is missing, or not a Temporal config file', () => {
    expect(refusal({ TEMPORAL_CONFIG_FILE: path.join(dir, 'nope.toml') })).toMatch(
      /TEMPORAL_CONFIG_FILE: cannot read .*nope\.toml \(ENOENT\)/,
    );
    expect(refusal({ TEMPORAL_CONFIG_FILE: profileFile('[profile.default]\nadress = "x:1"\n') })).toMatch(
      /TEMPORAL_CONFIG_FILE: .* is not a valid Temporal config file: .*adress/,
    );
  });

  it('refuses a missing certificate file, naming the variable and the path', () => {
    const missing = path.join(dir, 'missing.crt');
    const message = refusal({
      TEMPORAL_ADDRESS: ADDRESS,
      TEMPORAL_TLS_CLIENT_CERT_PATH: missing,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
    });
    expect(message).toContain(`TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read ${missing} (ENOENT)`);
  });

  it('refuses an unreadable file', () => {
    // Root reads any file whatever its mode: a folder stands for a file that cannot be read.
    const message = refusal({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS_SERVER_CA_CERT_PATH: dir });
    expect(message).toContain(`TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read ${dir} (EISDIR)`);
  });

  it('refuses a key without its certificate, and a certificate without its key', () => {
    expect(refusal({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey })).toMatch(
      /TEMPORAL_TLS_CLIENT_CERT_PATH: missing; mTLS needs both/,
    );
    expect(refusal({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert })).toMatch(
      /TEMPORAL_TLS_CLIENT_KEY_PATH: missing; mTLS needs both/,
    );
  });

  it('refuses an API key together with a client certificate', () => {
    const message = refusal({
      TEMPORAL_ADDRESS: ADDRESS,
      TEMPORAL_API_KEY: 'key-123',
      TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
    });
    expect(message).toMatch(/TEMPORAL_API_KEY and TEMPORAL_TLS_CLIENT_CERT_PATH: .*not both/);
  });

  it('refuses a key that is not the certificate’s, and files that are not PEM', () => {
    expect(
      refusal({
        TEMPORAL_ADDRESS: ADDRESS,
        TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: other.clientKey,
      }),
    ).toMatch(/TEMPORAL_TLS_CLIENT_KEY_PATH: not the key of the certificate in TEMPORAL_TLS_CLIENT_CERT_PATH/);
    const text = profileFile('hello');
    expect(refusal({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS_SERVER_CA_CERT_PATH: text })).toMatch(
      /TEMPORAL_TLS_SERVER_CA_CERT_PATH: not a PEM file/,
    );
  });

  it('refuses TLS settings without TEMPORAL_ADDRESS (the local dev server speaks plaintext)', () => {
    expect(refusal({ TEMPORAL_API_KEY: 'key-123' })).toMatch(/TEMPORAL_ADDRESS: required with TLS, an API key/);
  });

  it('refuses TEMPORAL_TLS=false beside TLS files, a misspelt TEMPORAL_TLS, and the parts of the standard not honoured', () => {
    expect(refusal({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert })).toMatch(
      /TEMPORAL_TLS: false, yet TEMPORAL_TLS_SERVER_CA_CERT_PATH set/,
    );
    expect(refusal({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS: 'yes' })).toMatch(/TEMPORAL_TLS:/);
    expect(refusal({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' })).toMatch(
      /TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: not supported/,
    );
    expect(
      refusal({
        TEMPORAL_ADDRESS: ADDRESS,
        TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
        TEMPORAL_TLS_CLIENT_CERT_DATA: 'x',
        TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
      }),
    ).toMatch(/TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_CERT_DATA: give the file or its text, not both/);
  });
});
