import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { removeDataDir } from '../../../infra/local/data-dir';
import { freePort } from '../../../platform/free-port';
import { admin } from '../../setup/admin';
import { eventually } from '../../setup/eventually';
import { SUB } from '../../setup/paths';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Pids of processes whose command line names `dir`: the servers a stack in that DATA_DIR started. */
function processesUsing(dir: string): number[] {
  // As root, the Postgres cluster lives under /var/lib/offer-marketplace, linked from DATA_DIR/postgres
  // (the owner-only DATA_DIR is closed to the postgres user): its server names the linked folder.
  const cluster = path.join(dir, 'postgres');
  const dirs = [dir, ...(fs.existsSync(cluster) && fs.lstatSync(cluster).isSymbolicLink() ? [fs.realpathSync(cluster)] : [])];
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const cmdline = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
        return dirs.some((d) => cmdline.includes(d));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * How long a start may take to be ready (a first one: ~20 s): below the tests' own timeouts, so a start
 * that hangs fails with npm start's output rather than with jest's timeout, which tells nothing.
 */
const READY_MS = 120_000;

/** `npm start` as a user runs it: embedded stores, API and worker, in a DATA_DIR of its own. */
describe('npm start', () => {
  const dirs: string[] = [];
  const newDataDir = (mode = 0o755) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offer-marketplace-test-start-'));
    fs.chmodSync(dir, mode);
    dirs.push(dir);
    return dir;
  };
  const envFor = async (dataDir: string): Promise<Record<string, string>> => {
    const env: Record<string, string> = {};
    // Only the settings of a fresh machine: no external stores from the suite's environment.
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(DATABASE_URL|TEMPORAL_ADDRESS|S3_|TEST_|WORKFLOW_BUNDLE_PATH)/.test(k)) env[k] = v;
    return Object.assign(env, {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      TEMPORAL_DEV_PORT: String(await freePort()),
      EMBEDDED_S3_PORT: String(await freePort()),
    });
  };
  afterAll(() => {
    // As root with a private DATA_DIR, the cluster lives elsewhere and DATA_DIR/postgres links to it.
    for (const dir of dirs) removeDataDir(dir);
  });

  const start = async (env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> => {
    // Its own process group, so Ctrl-C can be sent the way a terminal sends it: to the whole group.
    const child = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    try {
      await eventually(
        () => `npm start to be ready:\n${out}`,
        () => {
          if (child.exitCode !== null) throw new Error(`npm start exited: ${out}`);
          return out.includes('ready; Ctrl-C stops everything');
        },
        { timeoutMs: READY_MS, intervalMs: 100 },
      );
    } catch (err) {
      // Stopped here, so a start that never got ready leaves nothing running once its DATA_DIR is removed.
      if (child.exitCode === null) await stop(child);
      throw err;
    }
    return { child, output: () => out };
  };
  /** Ctrl-C; resolves with how long the stop took. */
  const stop = async (child: ChildProcess): Promise<number> => {
    const exited = new Promise((r) => child.once('close', r));
    const t0 = Date.now();
    process.kill(-child.pid!, 'SIGINT');
    await exited;
    return Date.now() - t0;
  };

  it('serves /health with all three backends, stops cleanly and in time on Ctrl-C, and keeps its data for the next start', async () => {
    const dataDir = newDataDir();
    const env = await envFor(dataDir);
    const baseUrl = `http://127.0.0.1:${env.PORT}`;
    const first = await start(env);
    for (const step of ['postgres: ready', 'temporal: ready', 'versitygw: ready', 'migrations:', 'worker: running', 'api: http']) {
      expect(first.output()).toContain(step);
    }
    expect(processesUsing(dataDir).length).toBeGreaterThanOrEqual(3);
    const health = await fetch(`${baseUrl}/health`);
    expect(health.status).toBe(200);
    const key = (await admin(['keys', 'create', '--interface', 'submission'], env)).stdout.trim();
    expect(key).toMatch(/^om_test_sub_/);
    const categories = await fetch(`${baseUrl}${SUB}/categories`, { headers: { 'x-service-api-key': key } });
    expect(categories.status).toBe(200);
    expect(await stop(first.child)).toBeLessThan(10_000);
    expect(first.output()).toContain('stopped');
    expect(first.output()).not.toMatch(/second error|killed by timeout/);
    // postmaster.pid stays only when Postgres was killed before its shutdown checkpoint ended.
    const pidFiles = ['temporal.pid', 'versitygw.pid', 'postgres.pid', 'postgres/postmaster.pid'];
    expect(pidFiles.filter((f) => fs.existsSync(path.join(dataDir, f)))).toEqual([]);
    expect(processesUsing(dataDir)).toEqual([]);

    const second = await start(env);
    try {
      const again = await fetch(`${baseUrl}${SUB}/categories`, { headers: { 'x-service-api-key': key } });
      expect(again.status).toBe(200); // the key (in Postgres) survived the restart
      expect(second.output()).toContain('schema up to date');
    } finally {
      expect(await stop(second.child)).toBeLessThan(10_000);
    }
    expect(processesUsing(dataDir)).toEqual([]);
  }, 300_000);

  it('names a port another server already holds, and leaves nothing it started running', async () => {
    const dataDir = newDataDir();
    const env = await envFor(dataDir);
    const stranger = net.createServer();
    await new Promise<void>((r) => stranger.listen(Number(env.EMBEDDED_S3_PORT), '127.0.0.1', r));
    try {
      const child = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      child.stdout!.on('data', (c) => (out += c));
      child.stderr!.on('data', (c) => (out += c));
      const code = await new Promise((r) => child.once('close', r));
      expect(code).not.toBe(0);
      expect(out).toContain(`port ${env.EMBEDDED_S3_PORT} (EMBEDDED_S3_PORT) is already in use by another process`);
      // Postgres and Temporal were starting beside the S3 server: they are stopped again.
      expect(processesUsing(dataDir)).toEqual([]);
    } finally {
      stranger.close();
    }
  }, 180_000);

  // The embedded Postgres refuses to run as root and runs as the `postgres` user, who cannot walk
  // into a private (0700) folder: its cluster then lives in a folder of its own. Only root takes
  // that path, so under another user the test is skipped, saying so in its name (jest counts it
  // as skipped; CI runs as root).
  const asRoot = process.getuid?.() === 0;
  (asRoot ? it : it.skip)(
    `runs as root in a DATA_DIR inside a private folder${asRoot ? '' : ` (skipped: needs root, this is uid ${process.getuid?.()})`}`,
    async () => {
      const dataDir = path.join(newDataDir(0o700), 'data');
      dirs.unshift(dataDir); // removed before its parent, so its cluster elsewhere goes too
      const env = await envFor(dataDir);
      const s = await start(env);
      try {
        expect((await fetch(`http://127.0.0.1:${env.PORT}/health`)).status).toBe(200);
        expect(fs.lstatSync(path.join(dataDir, 'postgres')).isSymbolicLink()).toBe(true);
      } finally {
        await stop(s.child);
      }
      expect(processesUsing(dataDir)).toEqual([]);
    },
    180_000,
  );
});
