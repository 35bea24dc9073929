import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * Endpoints an integrator shapes (issue 37, docs/callbacks.md "Endpoint settings"): which event
 * types go to it (empty: all its client may receive), at most how many attempts a second
 * (null: no limit), and a description. `paced_until` is the end of the last pacing slot handed
 * out for a limited endpoint; a delivery's `paced_at` is the slot its next attempt holds.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table callback_endpoints
    add column event_types text[] not null default '{}',
    add column max_per_second integer check (max_per_second between 1 and 100),
    add column description text,
    add column paced_until timestamptz`.execute(db);
  await sql`alter table callback_deliveries add column paced_at timestamptz`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table callback_deliveries drop column paced_at`.execute(db);
  await sql`alter table callback_endpoints drop column event_types, drop column max_per_second,
    drop column description, drop column paced_until`.execute(db);
}
