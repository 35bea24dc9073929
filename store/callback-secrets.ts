import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from './db';
import { currentPrefix, isSealed, isUnderCurrentKey, openSecret, sealSecret, storedForm, type SecretKeys } from '../platform/secret-box';

/*
 * Callback endpoints' signing secrets at rest (callback_endpoints.secret, previous_secret):
 * rotation with an overlap, and re-encryption under the current CALLBACK_SECRET_KEY. Which
 * secrets sign an attempt is the delivery activity's (activities/callbacks/signing.ts).
 */

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

/**
 * A new signing secret (stored encrypted under the current key of `secretKeys` when set); the old one keeps
 * signing too until `overlapSeconds` from now. The old one moves as stored, clear or encrypted.
 */
export async function rotateSecret(
  db: Db,
  endpointId: string,
  overlapSeconds: number,
  secretKeys: SecretKeys,
): Promise<{ secret: string; previousValidUntil: Date }> {
  const secret = newSigningSecret();
  const previousValidUntil = new Date(Date.now() + overlapSeconds * 1000);
  await db
    .updateTable('callback_endpoints')
    .set((eb) => ({
      previous_secret: eb.ref('secret'),
      previous_secret_expires_at: previousValidUntil,
      secret: sealSecret(secret, secretKeys),
      updated_at: new Date(),
    }))
    .where('id', '=', endpointId)
    .execute();
  return { secret, previousValidUntil };
}

/** Every encrypted stored secret (current and previous), to check at start-up that the configured key opens each. */
export async function encryptedSecrets(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('callback_endpoints')
    .select(['secret', 'previous_secret'])
    .where((eb) => eb.or([eb('secret', 'like', 'enc:%'), eb('previous_secret', 'like', 'enc:%')]))
    .execute();
  return rows.flatMap((r) => [r.secret, r.previous_secret ?? '']).filter(isSealed);
}

/** What `resealSecrets` rewrote: endpoints and stored values, the values counted by what they were before. */
export interface Resealed {
  endpoints: number;
  secrets: number;
  /** Per former form: `clear`, `v1`, or `v2:<key id>`. */
  from: Record<string, number>;
}

/**
 * Rewrites stored secrets (current and previous) under the current key of `secretKeys`: with
 * `which: 'clear'` only those stored in clear; with `'not-current'` every one not already
 * `enc:v2:` under the current key (clear, v1, or another key's). In batches of `batchSize`
 * endpoints, each batch one transaction whose rows are locked (FOR UPDATE) from reading to
 * writing, so a concurrent `rotateSecret` or a second run waits for the batch and then sees its
 * result. A value no configured key opens throws (SecretKeyError) and rolls back its batch. Rows
 * already done no longer match, so running it again (or after a failure) only does what is left.
 */
export async function resealSecrets(
  db: Db,
  secretKeys: readonly string[],
  which: 'clear' | 'not-current',
  batchSize = 100,
): Promise<Resealed> {
  const prefix = currentPrefix(secretKeys)!;
  const needs = (stored: string) => (which === 'clear' ? !isSealed(stored) : !isUnderCurrentKey(stored, secretKeys));
  // The same test in SQL (left(), not LIKE: base64url's "_" is a LIKE wildcard).
  const sqlNeeds = (column: 'secret' | 'previous_secret') =>
    which === 'clear'
      ? sql<boolean>`left(${sql.ref(column)}, 4) <> 'enc:'`
      : sql<boolean>`left(${sql.ref(column)}, ${prefix.length}) <> ${prefix}`;
  const done: Resealed = { endpoints: 0, secrets: 0, from: {} };
  const reseal = (stored: string) => {
    const f = storedForm(stored);
    const from = f.form === 'v2' ? `v2:${f.keyId}` : f.form;
    done.from[from] = (done.from[from] ?? 0) + 1;
    done.secrets += 1;
    return sealSecret(openSecret(stored, secretKeys), secretKeys);
  };
  for (;;) {
    const before = done.secrets;
    const changed = await db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('callback_endpoints')
        .select(['id', 'secret', 'previous_secret'])
        // A NULL previous_secret makes its test NULL, not true: only the other column decides.
        .where((eb) => eb.or([sqlNeeds('secret'), sqlNeeds('previous_secret')]))
        .orderBy('id')
        .limit(batchSize)
        .forUpdate()
        .execute();
      for (const r of rows) {
        await trx
          .updateTable('callback_endpoints')
          .set({
            secret: needs(r.secret) ? reseal(r.secret) : r.secret,
            previous_secret: r.previous_secret !== null && needs(r.previous_secret) ? reseal(r.previous_secret) : r.previous_secret,
          })
          .where('id', '=', r.id)
          .execute();
      }
      return rows.length;
    });
    // Every row taken had something to rewrite; should the SQL and the code above ever disagree,
    // stop rather than take the same rows forever.
    if (changed > 0 && done.secrets === before) throw new Error('resealSecrets: rows selected with nothing to rewrite');
    done.endpoints += changed;
    if (changed > 0) continue;
    // None returned: either nothing is left, or every remaining row was locked by a concurrent run
    // and rewritten by it while this one waited (it then drops out of the result). Stop only when
    // nothing is left, so a run that ends has seen the whole table done.
    const left = await db
      .selectFrom('callback_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where((eb) => eb.or([sqlNeeds('secret'), sqlNeeds('previous_secret')]))
      .executeTakeFirstOrThrow();
    if (Number(left.n) === 0) return done;
  }
}
