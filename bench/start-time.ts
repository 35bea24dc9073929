import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeDataDir } from '../infra/local/data-dir';
import { freePort } from '../platform/free-port';

/*
 * `npm run bench:start [-- --runs N] [--cold]`: how long `npm start` takes until GET /health answers
 * 200, measured from the moment `npm start` is spawned. The first start is on a fresh DATA_DIR
 * (initdb, migrations, the workflow bundle if not cached); the next N reuse it (a warm start). Each
 * start is stopped with Ctrl-C (SIGINT to its process group) and the stop is timed too. Binaries
 * must be built already (a first `npm start` builds them), unless `--cold`. Prints each run's
 * progress lines with their elapsed times, then the median, and the load average at that moment.
 *
 * `--cold`: the first start as on a fresh machine after `npm install`: an empty XDG_CACHE_HOME (so
 * the Temporal CLI and the S3 server are built from source and the workflows bundled again), fresh
 * Go module and build caches (GOCACHE, GOMODCACHE) in a temporary folder, and dist/start.cjs compiled
 * again. The builds take both cores for minutes. `npm install` itself is not timed here.
 */

const ROOT = path.resolve(__dirname, '..');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;
const VERBOSE = process.argv.includes('--verbose');
const COLD = process.argv.includes('--cold');
const say = (m: string) => process.stdout.write(`[start-time] ${m}\n`);

/**
 * CPU seconds used so far by the processes of this process group (npm, its shell, node; the
 * servers run in groups of their own): a figure that, unlike the wall time, does not depend on how
 * busy the machine is. Linux only (/proc); clock ticks are 1/100 s there.
 */
function groupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      // Fields after the command name (which may hold spaces) start at the state, field 3.
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks * 10;
}

interface Run {
  cpuMs: number;
  healthyMs: number;
  stopMs: number;
  lines: string[];
}

async function startOnce(env: NodeJS.ProcessEnv, port: number, timeoutMs: number): Promise<Run> {
  const t0 = performance.now();
  const child = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const closed = new Promise((r) => child.once('close', r));
  const lines: string[] = [];
  child.stderr!.on('data', (c: Buffer) =>
    lines.push(
      ...c
        .toString()
        .split('\n')
        .filter((l) => l.trim()),
    ),
  );
  let healthyMs = 0;
  let cpuMs = 0;
  let failure: Error | undefined;
  while (!healthyMs && !failure) {
    if (child.exitCode !== null) failure = new Error(`npm start exited (${child.exitCode}):\n${lines.join('\n')}`);
    else if (performance.now() - t0 > timeoutMs) failure = new Error(`not healthy after ${timeoutMs / 1000} s:\n${lines.join('\n')}`);
    else if (
      await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.status === 200,
        () => false,
      )
    ) {
      healthyMs = performance.now() - t0;
      cpuMs = groupCpuMs(child.pid!);
    } else await new Promise((r) => setTimeout(r, 20));
  }
  // Stopped in all cases, as a terminal's Ctrl-C would: the whole process group.
  const s0 = performance.now();
  if (child.exitCode === null) process.kill(-child.pid!, 'SIGINT');
  await closed;
  const stopMs = performance.now() - s0;
  if (failure) throw failure;
  return { cpuMs, healthyMs, stopMs, lines };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/**
 * `--cold`: the caches a fresh machine lacks, made empty in `dir`. A server binary on PATH would skip
 * its build, so such a binary on PATH stops the run.
 */
function coldCaches(env: NodeJS.ProcessEnv, dir: string): void {
  for (const name of ['temporal', 'versitygw', 'minio']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8', env }).stdout.trim();
    if (found) throw new Error(`--cold: ${found} is on PATH, so npm start would not build ${name}; take it off PATH first`);
  }
  Object.assign(env, {
    XDG_CACHE_HOME: path.join(dir, 'cache'),
    GOCACHE: path.join(dir, 'go-build'),
    GOMODCACHE: path.join(dir, 'go-mod'),
    // Module cache files are read-only by default; writable, the folder can be removed afterwards.
    GOFLAGS: [env.GOFLAGS, '-modcacherw'].filter(Boolean).join(' '),
  });
  // Without its manifest, main/launch.cjs compiles dist/start.cjs again, as in a fresh clone.
  fs.rmSync(path.join(ROOT, 'dist', 'start.cjs.json'), { force: true });
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'offer-marketplace-start-time-'));
  fs.chmodSync(dataDir, 0o755); // the embedded Postgres runs as the `postgres` user when we are root
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  // A fresh machine's settings: no external stores from this shell's environment.
  for (const [k, v] of Object.entries(process.env))
    if (!/^(DATABASE_URL|TEMPORAL_ADDRESS|S3_|TEST_|WORKFLOW_BUNDLE_PATH)/.test(k)) env[k] = v;
  Object.assign(env, {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    EMBEDDED_S3_PORT: String(await freePort()),
  });
  const coldDir = COLD ? fs.mkdtempSync(path.join(os.tmpdir(), 'offer-marketplace-cold-')) : undefined;
  try {
    if (coldDir) coldCaches(env, coldDir);
    const runs: Run[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const load = os.loadavg()[0].toFixed(1);
      // A cold first start builds two Go programs from source: allow it half an hour.
      const run = await startOnce(env, port, i === 0 && COLD ? 1_800_000 : 300_000);
      const first = COLD ? 'first, cold (empty caches, fresh DATA_DIR)' : 'first (fresh DATA_DIR)';
      say(
        `${i === 0 ? first : `warm ${i}`}: healthy in ${seconds(run.healthyMs)} (CPU of npm and node ${seconds(run.cpuMs)}), stopped in ${seconds(run.stopMs)} (load ${load})`,
      );
      if (VERBOSE || i <= 1) for (const l of run.lines) say(`    ${l}`);
      if (i > 0) runs.push(run);
    }
    const h = runs.map((r) => r.healthyMs);
    if (!runs.length) return;
    say(
      `warm start to healthy: median ${seconds(median(h))} (min ${seconds(Math.min(...h))}, max ${seconds(Math.max(...h))}, ${runs.length} runs); ` +
        `CPU median ${seconds(median(runs.map((r) => r.cpuMs)))}; ` +
        `stop median ${seconds(median(runs.map((r) => r.stopMs)))}; load average now ${os
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
  } finally {
    removeDataDir(dataDir);
    if (coldDir) fs.rmSync(coldDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

main().catch((err) => {
  say(String(err instanceof Error ? err.message : err));
  process.exit(1);
});
