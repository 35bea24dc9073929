import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * What a key keeps of its answer (issue 43 items 4 and 12; docs/decisions/0072-csv-writer-and-secrets.md):
 * `answer` says how `body` is read. `bytes`: the answer's bytes, replayed as they were (what
 * migration 0045 stored; a CSV or a page still is). `value`: the answer's value (JSON, its Dates and BigInts tagged),
 * replayed in the format the retry asks for (JSON or XML). `secret_shown`: the answer carried a
 * secret, which is never stored; the replay is 409 `idempotency_key_secret_shown`, and `body` is empty.
 *
 * Existing data: rows stored before this migration are `bytes`. Those whose answer holds a counter
 * sign-in (POST /redemption_staff, …/sign_in: `sign_in` in JSON or XML) keep its code in clear for
 * up to 24 hours: they become `secret_shown` here, the code erased.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table idempotency_keys
    add column answer text not null default 'bytes' check (answer in ('bytes', 'value', 'secret_shown'))`.execute(db);
  await sql`update idempotency_keys
    set answer = 'secret_shown', status_code = 409, headers = '{}'::jsonb, body = ''::bytea
    where state = 'completed'
      and (position(convert_to('"sign_in":', 'UTF8') in body) > 0 or position(convert_to('<sign_in>', 'UTF8') in body) > 0)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // A value cannot be turned back into bytes: those answers are dropped (their retries run again).
  await sql`delete from idempotency_keys where answer <> 'bytes'`.execute(db);
  await sql`alter table idempotency_keys drop column answer`.execute(db);
}
