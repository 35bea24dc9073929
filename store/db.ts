import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './database';

// Counts and sums come back as int8/numeric, read as JS numbers: exact below 2^53 only. A sum that
// can pass it (a statement's money) is selected as text and read as BigInt (store/statements.ts).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));
// `date` columns stay 'YYYY-MM-DD' strings: turning them into JS Dates would shift them by time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

export type Db = Kysely<Database>;
/** A transaction: store functions that must run inside one take this. */
export type Trx = Transaction<Database>;

/** Each Db's connection string, for the one thing a pool cannot do: hold a LISTEN open. */
const urls = new WeakMap<Db, string>();

export function createDb(url: string, poolSize = 10): Db {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000 });
  // An idle client losing its server (Postgres restarted) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // The same for a client checked out between two statements (a transaction waiting on its
  // caller) when Postgres restarts: pg emits the server's goodbye as an 'error' event, which with
  // no listener kills the process. The pool drops such a client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  urls.set(db, url);
  return db;
}

/** A LISTEN held open on its own connection (not a pool slot); `close()` ends it. */
export interface Listener {
  /** False once the connection broke: no more notifications come, the caller must poll. */
  readonly alive: boolean;
  close(): Promise<void>;
}

/**
 * LISTENs on `channel` over a dedicated connection and calls `onNotify` with each notification's
 * payload (delivered when the notifying transaction commits). A broken connection is not retried
 * here: `alive` turns false, `onBroken` is called, and the caller decides what to do without it.
 */
export async function listen(db: Db, channel: string, onNotify: (payload: string) => void, onBroken?: () => void): Promise<Listener> {
  const url = urls.get(db);
  if (!url) throw new Error('listen() needs a Db made by createDb()');
  const client = new pg.Client({ connectionString: url });
  let alive = true;
  const broken = () => {
    if (alive) onBroken?.();
    alive = false;
  };
  client.on('error', broken);
  client.on('end', broken);
  client.on('notification', (msg) => onNotify(msg.payload ?? ''));
  try {
    await client.connect();
    await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  return {
    get alive() {
      return alive;
    },
    async close() {
      alive = false;
      await client.end().catch(() => undefined);
    },
  };
}
