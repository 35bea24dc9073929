import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * One Idempotency-Key mechanism for every request that changes something (issue 37;
 * docs/decisions/0061-idempotency-keys.md; store/idempotency-keys.ts). A key is the client's,
 * (client_id, key) unique: the first request claims it (`in_progress`), its first complete answer
 * (status, the headers that matter, the body bytes) is stored (`completed`) and replayed until
 * `expires_at`; `request_hash` tells a retry from another request under the same key.
 *
 * Existing data: the redemptions' own keys (voucher_redemptions.idempotency_key, migrations 0019
 * and 0042) are not copied here. Their answers were never stored, and which client sent them
 * cannot be told (a voucher is redeemed on either interface). They stay answered where they were:
 * a redeem whose key has no row here runs, finds its redemption by (voucher, key) and answers the
 * voucher as it is, as docs/vouchers.md says; that answer is then stored here like any other.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table idempotency_keys (
    client_id text not null,
    key text not null,
    request_hash text not null,
    state text not null check (state in ('in_progress', 'completed')),
    status_code integer,
    headers jsonb,
    body bytea,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    primary key (client_id, key),
    check ((state = 'completed') = (status_code is not null and headers is not null and body is not null))
  )`.execute(db);
  // The pruning schedule deletes by age.
  await sql`create index idempotency_keys_expires_at on idempotency_keys (expires_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
