import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../platform/config';

/* The TLS files of Postgres (DATABASE_URL's libpq parameters) and of the S3 store (S3_CA_FILE), checked at start by setting. */

let dir: string;
let ca: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backend-tls-'));
  ca = path.join(dir, 'ca.pem');
  // Only its PEM shape is checked at start; the TLS stack test uses real certificates.
  fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const db = (params: string) => ({ DATABASE_URL: `postgres://u:p@db.example.com:5432/offers?${params}` });
const s3 = { S3_ENDPOINT: 'https://s3.example.com', S3_ACCESS_KEY: 'a', S3_SECRET_KEY: 'b' };

describe('backends over TLS: settings', () => {
  it('takes a DATABASE_URL with sslmode=verify-full and a readable sslrootcert, and an S3_CA_FILE beside an https endpoint', () => {
    expect(loadConfig(db(`sslmode=verify-full&sslrootcert=${ca}`)).DATABASE_URL).toContain('sslmode=verify-full');
    expect(loadConfig({ ...s3, S3_CA_FILE: ca }).S3_CA_FILE).toBe(ca);
  });

  it('refuses a missing sslrootcert, an unknown sslmode and a client certificate without its key', () => {
    const missing = path.join(dir, 'missing.pem');
    expect(() => loadConfig(db(`sslmode=verify-full&sslrootcert=${missing}`))).toThrow(
      `DATABASE_URL: sslrootcert: cannot read ${missing} (ENOENT)`,
    );
    expect(() => loadConfig(db('sslmode=verify_full'))).toThrow(/DATABASE_URL: sslmode=verify_full is not one of/);
    expect(() => loadConfig(db(`sslmode=verify-full&sslcert=${ca}`))).toThrow('DATABASE_URL: sslcert and sslkey: give both, or neither');
  });

  it('refuses an S3_CA_FILE that is not PEM, or beside a plain http endpoint', () => {
    const text = path.join(dir, 'text.txt');
    fs.writeFileSync(text, 'hello');
    expect(() => loadConfig({ ...s3, S3_CA_FILE: text })).toThrow(`S3_CA_FILE: not a PEM file (${text})`);
    expect(() => loadConfig({ ...s3, S3_ENDPOINT: 'http://s3.example.com', S3_CA_FILE: ca })).toThrow(
      'S3_CA_FILE: only with an https:// S3_ENDPOINT',
    );
  });
});
