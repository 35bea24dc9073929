import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/*
 * An offer's review as an advertiser follows it (docs/offer-lifecycle.md "Following a review";
 * decision 0078).
 *
 * - offer_review_steps: what happened to the review, one row per step, written by the review
 *   workflow's activities (and the console's first opening) in the transaction of the change and
 *   its event; `id` is derived from the step's key, so a retried step writes nothing twice. A
 *   decision's row keeps how long its round waited (`waited_seconds`) and the offer's first
 *   category then: the expected decision time is read from the last of them.
 * - offers.review_due_at: when the current round's SLA ends (submitted_at + the review SLA then);
 *   null when not pending.
 *
 * Existing offers get a `submitted` step at their submitted_at and, when reviewed, their decision
 * with the time it took; pending ones a due time from the default SLA (72 hours).
 */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('offer_review_steps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('offer_id', 'text', (c) => c.notNull().references('offers.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('operator', 'text')
    .addColumn('reason', 'text')
    .addColumn('changed_fields', sql`text[]`)
    .addColumn('waited_seconds', 'double precision')
    .addColumn('category_id', 'integer')
    .execute();
  await db.schema.createIndex('offer_review_steps_by_offer').on('offer_review_steps').columns(['offer_id', 'at']).execute();
  await sql`create index offer_review_decisions on offer_review_steps (at desc) where kind in ('approved', 'rejected')`.execute(db);
  await sql`create index offer_review_decisions_by_category on offer_review_steps (category_id, at desc)
            where kind in ('approved', 'rejected')`.execute(db);
  await db.schema.alterTable('offers').addColumn('review_due_at', 'timestamptz').execute();
  await sql`update offers set review_due_at = submitted_at + interval '72 hours' where status = 'pending'`.execute(db);
  await sql`insert into offer_review_steps (id, offer_id, at, kind, actor)
            select 'rvs_backfill_submitted_' || id, id, submitted_at, 'submitted', 'advertiser' from offers`.execute(db);
  await sql`insert into offer_review_steps (id, offer_id, at, kind, actor, operator, reason, waited_seconds, category_id)
            select 'rvs_backfill_decided_' || id, id, reviewed_at, status, 'review_team', reviewed_by, rejection_reason,
                   extract(epoch from reviewed_at - submitted_at), category_ids[1]
              from offers where status in ('approved', 'rejected') and reviewed_at >= submitted_at`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('offers').dropColumn('review_due_at').execute();
  await db.schema.dropTable('offer_review_steps').execute();
}
