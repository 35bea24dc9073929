import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../infra/free-port';
import { admin } from '../setup/admin';

const ROOT = path.resolve(__dirname, '..', '..');

/** `npm start` as a user runs it: embedded stores, API and worker, in a DATA_DIR of its own. */
describe('npm start', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'offer-marketplace-test-start-'));
  fs.chmodSync(dataDir, 0o755);
  const env: Record<string, string> = {};
  let baseUrl = '';
  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // Only the settings of a fresh machine: no external stores from the suite's environment.
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(DATABASE_URL|TEMPORAL_ADDRESS|S3_|TEST_|WORKFLOW_BUNDLE_PATH)/.test(k)) env[k] = v;
    Object.assign(env, {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      MINIO_PORT: String(await freePort()),
    });
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 }));

  const start = async (): Promise<{ child: ChildProcess; output: () => string }> => {
    // Its own process group, so Ctrl-C can be sent the way a terminal sends it: to the whole group.
    const child = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    for (let i = 0; i < 1200 && !out.includes('ready; Ctrl-C stops everything'); i++) {
      if (child.exitCode !== null) throw new Error(`npm start exited: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { child, output: () => out };
  };
  const stop = async (child: ChildProcess) => {
    const exited = new Promise((r) => child.once('close', r));
    process.kill(-child.pid!, 'SIGINT');
    await exited;
  };

  it('serves /health with all three backends, stops cleanly on Ctrl-C, and keeps its data for the next start', async () => {
    const first = await start();
    for (const step of ['postgres: ready', 'temporal: ready', 'minio: ready', 'migrations:', 'worker: running', 'api: http']) {
      expect(first.output()).toContain(step);
    }
    const health = await fetch(`${baseUrl}/health`);
    expect(health.status).toBe(200);
    const key = (await admin(['keys', 'create', '--interface', 'submission'], env)).stdout.trim();
    expect(key).toMatch(/^om_test_sub_/);
    const categories = await fetch(`${baseUrl}/submission/beta/categories`, { headers: { 'x-service-api-key': key } });
    expect(categories.status).toBe(200);
    await stop(first.child);
    expect(first.output()).toContain('stopped');
    for (const pidFile of ['temporal.pid', 'minio.pid', 'postgres/postmaster.pid'])
      expect(fs.existsSync(path.join(dataDir, pidFile))).toBe(false);

    const second = await start();
    try {
      const again = await fetch(`${baseUrl}/submission/beta/categories`, { headers: { 'x-service-api-key': key } });
      expect(again.status).toBe(200); // the key (in Postgres) survived the restart
      expect(second.output()).toContain('schema up to date');
    } finally {
      await stop(second.child);
    }
  });
});
