import { sql } from 'kysely';
import { listen, type Db, type Listener } from './db';
import type { IdempotencyAnswerKind } from './rows/idempotency';

/*
 * The idempotency_keys table (migration 0045; docs/decisions/0061-idempotency-keys.md): each
 * client's Idempotency-Keys, the request each was first used for (`request_hash`) and, once it
 * has one, the answer it gave. Claiming is one statement, so of any number of racing requests
 * with one key exactly one claims it; the rest see its row. Completing or releasing a claim
 * notifies IDEMPOTENCY_CHANNEL on commit, so a retry waiting for it wakes then, without polling.
 */

/** The channel a claim's end notifies, with `<client id> <key>` as the payload. */
const IDEMPOTENCY_CHANNEL = 'idempotency_keys';

/** What the stored answer of a key holds: enough to send it again (`kind`: how `body` is read, migration 0063). */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  kind: IdempotencyAnswerKind;
}

export type Claim =
  /** This request owns the key now: run it, then complete or release the claim. */
  | { kind: 'claimed' }
  /** The same request was answered before: send its answer again. */
  | ({ kind: 'replay'; answer: IdempotencyAnswerKind } & Omit<StoredAnswer, 'kind'>)
  /** The key was used for another request. */
  | { kind: 'reused' }
  /** The same request is still running (or its process died less than `staleSeconds` ago). */
  | { kind: 'in_progress' };

/** One client's key, as the request that claimed it names it. */
export interface ClaimedKey {
  clientId: string;
  key: string;
  requestHash: string;
}

export interface ClaimAsk extends ClaimedKey {
  /** How long the answer is kept and replayed. */
  ttlSeconds: number;
  /** An in_progress claim older than this belongs to a process that died: the same request takes it over. */
  staleSeconds: number;
}

/** Inserts the claim, or takes over an expired key or a stale claim of the same request; true when this request owns the key. */
async function take(db: Db, a: ClaimAsk): Promise<boolean> {
  const taken = await db
    .insertInto('idempotency_keys')
    .values({
      client_id: a.clientId,
      key: a.key,
      request_hash: a.requestHash,
      state: 'in_progress',
      expires_at: sql<Date>`now() + make_interval(secs => ${a.ttlSeconds})`,
    })
    .onConflict((oc) =>
      oc
        .columns(['client_id', 'key'])
        .doUpdateSet({
          request_hash: a.requestHash,
          state: 'in_progress',
          status_code: null,
          headers: null,
          body: null,
          created_at: sql<Date>`now()`,
          expires_at: sql<Date>`excluded.expires_at`,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.expires_at', '<=', sql<Date>`now()`),
            eb.and([
              eb('idempotency_keys.state', '=', 'in_progress'),
              eb('idempotency_keys.request_hash', '=', a.requestHash),
              eb('idempotency_keys.created_at', '<', sql<Date>`now() - make_interval(secs => ${a.staleSeconds})`),
            ]),
          ]),
        ),
    )
    .returning('key')
    .executeTakeFirst();
  return taken !== undefined;
}

/** Claims the client's key for this request, or says why not (see `Claim`). */
export async function claimIdempotencyKey(db: Db, a: ClaimAsk): Promise<Claim> {
  // A claim released between our insert and our read leaves no row: try again (twice is plenty).
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await take(db, a)) return { kind: 'claimed' };
    const row = await db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'state', 'status_code', 'headers', 'body', 'answer'])
      .where('client_id', '=', a.clientId)
      .where('key', '=', a.key)
      .executeTakeFirst();
    if (!row) continue;
    if (row.request_hash !== a.requestHash) return { kind: 'reused' };
    if (row.state === 'in_progress') return { kind: 'in_progress' };
    return { kind: 'replay', status: row.status_code!, headers: row.headers!, body: row.body!, answer: row.answer };
  }
  return { kind: 'in_progress' };
}

/**
 * Ends a claim of this request: with an answer, stores it (from now on the same request is
 * answered with it); without one (a 5xx, a request that ended unanswered), gives the key up, so a
 * retry runs again. Either way a waiting retry is woken.
 */
export async function endIdempotencyClaim(db: Db, c: ClaimedKey, answer?: StoredAnswer) {
  const ours = { client_id: c.clientId, key: c.key, request_hash: c.requestHash, state: 'in_progress' as const };
  await db
    .with('ended', (qb) =>
      answer
        ? qb
            .updateTable('idempotency_keys')
            .set({
              state: 'completed',
              status_code: answer.status,
              headers: JSON.stringify(answer.headers),
              body: answer.body,
              answer: answer.kind,
            })
            .where((eb) => eb.and(ours))
            .returning(['client_id', 'key'])
        : qb
            .deleteFrom('idempotency_keys')
            .where((eb) => eb.and(ours))
            .returning(['client_id', 'key']),
    )
    .selectFrom('ended')
    .select(sql`pg_notify(${IDEMPOTENCY_CHANNEL}, ended.client_id || ' ' || ended.key)`.as('notified'))
    .execute();
}

/** Calls `onEnd` when a claim of this client's key is completed or released (on the shared listening connection). */
export function listenForIdempotencyKey(db: Db, clientId: string, key: string, onEnd: () => void): Promise<Listener> {
  const mine = `${clientId} ${key}`;
  return listen(
    db,
    IDEMPOTENCY_CHANNEL,
    (payload) => {
      if (payload === mine) onEnd();
    },
    onEnd,
  );
}

/** Deletes up to `limit` keys past their expiry; answers how many it deleted (fewer than `limit`: none are left). */
export async function pruneIdempotencyKeys(db: Db, limit: number): Promise<number> {
  const result = await sql`delete from idempotency_keys where (client_id, key) in (
      select client_id, key from idempotency_keys where expires_at <= now() order by expires_at limit ${limit}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
