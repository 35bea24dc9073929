import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { persistedSecret } from '../../infra/local/secrets';
import { writeStackFile, type Endpoints } from '../../platform/endpoints';

/* DATA_DIR/stack.json and DATA_DIR/secrets hold the local servers' credentials: owner-only (issue 34). */
describe("the local stack's credential files", () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-mode-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const mode = (file: string) => fs.statSync(file).mode & 0o777;
  const endpoints: Endpoints = {
    databaseUrl: 'postgres://postgres:the-password@127.0.0.1:5432/postgres',
    temporalAddress: '127.0.0.1:7233',
    temporalNamespace: 'default',
    s3: { endpoint: 'http://127.0.0.1:7070', accessKey: 'a', secretKey: 'the-secret-key', region: 'us-east-1', bucket: 'b' },
  };

  it('writes stack.json owner-only, and tightens one an earlier start left readable', () => {
    const file = path.join(dataDir, 'stack.json');
    writeStackFile(dataDir, endpoints);
    expect(mode(file)).toBe(0o600);
    fs.chmodSync(file, 0o644);
    writeStackFile(dataDir, endpoints);
    expect(mode(file)).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).s3.secretKey).toBe('the-secret-key');
    expect(fs.readdirSync(dataDir)).toEqual(['stack.json']);
  });

  it('keeps the secrets folder 0700 and each secret 0600, tightening what is already there', () => {
    const made = persistedSecret(dataDir, 'postgres-password');
    const dir = path.join(dataDir, 'secrets');
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, 'postgres-password'))).toBe(0o600);
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(path.join(dir, 'postgres-password'), 0o644);
    expect(persistedSecret(dataDir, 'postgres-password')).toBe(made);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, 'postgres-password'))).toBe(0o600);
  });
});
