import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createHarness, type Harness } from '../setup/harness';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs the operators' CLI exactly as documented: `npm run --silent admin -- …`. */
export function admin(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe('admin CLI', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('keys create prints only the new key, which opens its interface', async () => {
    const res = admin(['keys', 'create', '--interface', 'distribution', '--name', 'Acme Deals']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^om_test_dist_[A-Za-z0-9_-]{43}\n$/);
    const key = res.stdout.trim();
    const ok = await h.app.inject({ method: 'GET', url: '/distribution/beta/categories', headers: { 'x-service-api-key': key } });
    expect(ok.statusCode).toBe(200);
    const row = await h.services.db.selectFrom('api_clients').selectAll().where('name', '=', 'Acme Deals').executeTakeFirstOrThrow();
    expect(row.key_hash).not.toContain(key);
    expect(JSON.stringify(row)).not.toContain(key.slice(16));
  });

  it('keys revoke shuts a key out at once', async () => {
    const key = admin(['keys', 'create', '--interface', 'submission']).stdout.trim();
    expect(admin(['keys', 'revoke', key]).code).toBe(0);
    const res = await h.app.inject({ method: 'GET', url: '/submission/beta/categories', headers: { 'x-service-api-key': key } });
    expect(res.statusCode).toBe(401);
  });

  it('refuses bad arguments with a message and a non-zero exit', () => {
    const res = admin(['keys', 'create', '--interface', 'marketing']);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/marketing/);
    const res2 = admin(['keys', 'create', '--interface', 'submission', '--reservations']);
    expect(res2.code).toBe(1);
    expect(res2.stderr).toMatch(/distribution keys only/);
  });
});
