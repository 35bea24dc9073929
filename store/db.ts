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
/** Each Db's one listening connection, shared by every wait of the process (`listen`). */
const shared = new WeakMap<Db, SharedListener>();

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
  // The listening connection is the Db's too: it ends with the pool.
  const destroy = db.destroy.bind(db);
  db.destroy = async () => {
    await shared.get(db)?.close();
    shared.delete(db);
    await destroy();
  };
  return db;
}

/** A LISTEN held open on the shared listening connection (not a pool slot); `close()` ends this one subscription. */
export interface Listener {
  /** False once the connection broke: no more notifications come, the caller must do without them. */
  readonly alive: boolean;
  close(): Promise<void>;
}

interface Subscriber {
  onNotify: (payload: string) => void;
  onBroken?: () => void;
  alive: boolean;
}

/**
 * One connection LISTENing on every channel any wait of the process asked for, fanning each
 * notification out to that channel's subscribers: a thousand waits hold one connection, not a
 * thousand. A channel stays LISTENed once asked for (the service uses three). When the connection
 * breaks, every subscriber is told (`alive` turns false) and the next `listen` opens a new one.
 */
class SharedListener {
  private readonly channels = new Map<string, Set<Subscriber>>();
  private readonly listening = new Map<string, Promise<void>>();
  private readonly client: pg.Client;
  private readonly connected: Promise<void>;
  broken = false;

  constructor(url: string, onBroken: () => void) {
    this.client = new pg.Client({ connectionString: url });
    const broke = () => {
      if (this.broken) return;
      this.broken = true;
      onBroken();
      for (const subs of this.channels.values())
        for (const sub of subs) {
          sub.alive = false;
          sub.onBroken?.();
        }
      this.channels.clear();
    };
    this.client.on('error', broke);
    this.client.on('end', broke);
    this.client.on('notification', (msg) => {
      for (const sub of this.channels.get(msg.channel) ?? []) sub.onNotify(msg.payload ?? '');
    });
    this.connected = this.client.connect().then(
      () => undefined,
      (err: unknown) => {
        broke();
        throw err;
      },
    );
  }

  async subscribe(channel: string, sub: Subscriber): Promise<void> {
    await this.connected;
    let listening = this.listening.get(channel);
    if (!listening) {
      listening = this.client.query(`LISTEN ${this.client.escapeIdentifier(channel)}`).then(() => undefined);
      this.listening.set(channel, listening);
      listening.catch(() => this.listening.delete(channel));
    }
    await listening;
    if (this.broken) throw new Error(`the listening connection broke before LISTEN ${channel}`);
    const subs = this.channels.get(channel) ?? new Set<Subscriber>();
    subs.add(sub);
    this.channels.set(channel, subs);
  }

  unsubscribe(channel: string, sub: Subscriber): void {
    this.channels.get(channel)?.delete(sub);
  }

  async close(): Promise<void> {
    this.broken = true;
    this.channels.clear();
    await this.client.end().catch(() => undefined);
  }
}

/**
 * Calls `onNotify` with the payload of each notification on `channel` (delivered when the
 * notifying transaction commits), over the Db's one shared listening connection. A broken
 * connection is not retried here: `alive` turns false, `onBroken` is called, and the caller
 * decides what to do without it (a later `listen` connects again).
 */
export async function listen(db: Db, channel: string, onNotify: (payload: string) => void, onBroken?: () => void): Promise<Listener> {
  const url = urls.get(db);
  if (!url) throw new Error('listen() needs a Db made by createDb()');
  let listener = shared.get(db);
  if (!listener || listener.broken) {
    const fresh: SharedListener = new SharedListener(url, () => {
      if (shared.get(db) === fresh) shared.delete(db);
    });
    listener = fresh;
    shared.set(db, listener);
  }
  const sub: Subscriber = { onNotify, onBroken, alive: true };
  await listener.subscribe(channel, sub);
  const owner = listener;
  return {
    get alive() {
      return sub.alive;
    },
    async close() {
      sub.alive = false;
      owner.unsubscribe(channel, sub);
    },
  };
}
