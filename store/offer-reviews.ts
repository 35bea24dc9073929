import { sql } from 'kysely';
import type { Db, Trx } from './db';
import { derivedId } from './ids';
import { alreadyDone, appendOfferEvent } from './offer-events';
import { lockOffer } from './offer-stock';
import { DECISIONS_READ, DEFAULT_REVIEW_SLA_SECONDS } from '../domain/review-estimate';

/*
 * An offer's review as its advertiser follows it (decision 0078): the steps (offer_review_steps),
 * the review SLA (review_sla), and the reads behind the expected decision time. Steps are written in
 * the transaction of the change they record (store/offers.ts calls `appendReviewStep`); the ones
 * below are the review's own: the SLA passed, an operator opened it.
 */

/** A step as it is written; `key` is the change's idempotency key (one step per key). */
export interface NewReviewStep {
  key: string;
  offerId: string;
  kind: string;
  actor: 'advertiser' | 'review_team' | 'system';
  operator?: string | null;
  reason?: string | null;
  changedFields?: string[];
  waitedSeconds?: number;
  categoryId?: number | null;
  at?: Date;
}

/** Appends a step in the caller's transaction; a step of a key already written is left as it is. */
export async function appendReviewStep(trx: Trx, s: NewReviewStep): Promise<void> {
  await trx
    .insertInto('offer_review_steps')
    .values({
      id: derivedId('rvs', s.key),
      offer_id: s.offerId,
      ...(s.at ? { at: s.at } : {}),
      kind: s.kind,
      actor: s.actor,
      operator: s.operator ?? null,
      reason: s.reason ?? null,
      changed_fields: s.changedFields ?? null,
      waited_seconds: s.waitedSeconds ?? null,
      category_id: s.categoryId ?? null,
    })
    .onConflict((c) => c.column('id').doNothing())
    .execute();
}

/** A move as a review step: a (re)submission, or the status moved to; a decision keeps how long its round waited. */
export function reviewStepOf(
  c: { key: string; offerId: string; to: string; actor: NewReviewStep['actor']; reviewer?: string; reason?: string },
  was: { status: string; submitted_at: Date; category_ids: number[] },
  now: Date,
) {
  const decided = c.actor === 'review_team';
  const kind = c.to !== 'pending' ? c.to : was.status === 'withdrawn' ? 'resubmitted' : 'submitted';
  const waited = decided ? { waitedSeconds: (now.getTime() - was.submitted_at.getTime()) / 1000, categoryId: was.category_ids[0] } : {};
  return {
    key: c.key,
    offerId: c.offerId,
    kind,
    actor: c.actor,
    operator: decided ? (c.reviewer ?? 'review team') : null,
    reason: c.reason,
    at: now,
    ...waited,
  };
}

/** The review SLA in seconds: the operator's, or the default. */
export async function reviewSlaSeconds(db: Db | Trx): Promise<number> {
  const row = await db.selectFrom('review_sla').select('seconds').executeTakeFirst();
  return row?.seconds ?? DEFAULT_REVIEW_SLA_SECONDS;
}

/** Sets the review SLA (the caller moves the pending reviews' due times in the same transaction). */
export async function setReviewSlaSeconds(trx: Trx, seconds: number): Promise<void> {
  await trx
    .insertInto('review_sla')
    .values({ seconds })
    .onConflict((c) => c.column('one').doUpdateSet({ seconds, set_at: sql`now()` }))
    .execute();
}

/**
 * The review's SLA has passed (its workflow's timer): one `overdue` step and one
 * `offer.review_overdue` event. Nothing is recorded when the offer is no longer pending or its due
 * time moved later meanwhile (`dueAt` then says when): the workflow waits again.
 */
export async function recordReviewOverdue(
  db: Db,
  r: { key: string; offerId: string },
): Promise<{ recorded: boolean; waitingSeconds: number; dueAt: Date | null }> {
  return db.transaction().execute(async (trx) => {
    const row = await lockOffer(trx, r.offerId, ['status', 'submitted_at', 'review_due_at']);
    const now = new Date();
    const waitingSeconds = Math.round((now.getTime() - row.submitted_at.getTime()) / 1000);
    if (await alreadyDone(trx, r.key)) return { recorded: true, waitingSeconds, dueAt: row.review_due_at };
    if (row.status !== 'pending' || !row.review_due_at || row.review_due_at > now)
      return { recorded: false, waitingSeconds, dueAt: row.status === 'pending' ? row.review_due_at : null };
    const dueAt = row.review_due_at.toISOString();
    await appendReviewStep(trx, { key: r.key, offerId: r.offerId, kind: 'overdue', actor: 'system', at: now });
    await appendOfferEvent(trx, {
      key: r.key,
      offerId: r.offerId,
      type: 'offer.review_overdue',
      data: { due_at: dueAt, waiting_seconds: waitingSeconds },
    });
    return { recorded: true, waitingSeconds, dueAt: row.review_due_at };
  });
}

/**
 * An operator opened the pending review in the console: one `review_started` step and
 * `offer.review_started` event per round (the round is its submitted_at); false when it was not
 * pending, was opened before in this round, or its row is held by a change in flight.
 */
export async function recordReviewStarted(db: Db, r: { offerId: string; operator: string }): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('offers')
      .select(['status', 'submitted_at'])
      .where('id', '=', r.offerId)
      .forUpdate()
      // A page view never waits on the offer's row: a change holding it (a decision on its way) makes this moot.
      .skipLocked()
      .executeTakeFirst();
    if (row?.status !== 'pending') return false;
    const key = `review-started:${r.offerId}:${row.submitted_at.getTime()}`;
    if (await alreadyDone(trx, key)) return false;
    await appendReviewStep(trx, { key, offerId: r.offerId, kind: 'review_started', actor: 'review_team', operator: r.operator });
    await appendOfferEvent(trx, { key, offerId: r.offerId, type: 'offer.review_started', data: { operator: r.operator } });
    return true;
  });
}

/** The pending round's due time (the review SLA's end); null when not pending. */
export async function reviewDueAt(db: Db, offerId: string): Promise<Date | null> {
  const row = await db.selectFrom('offers').select('review_due_at').where('id', '=', offerId).executeTakeFirst();
  return row?.review_due_at ?? null;
}

/** The offer's review steps, oldest first (at most `limit`, the newest kept). */
export async function reviewSteps(db: Db, offerId: string, limit: number) {
  const rows = await db
    .selectFrom('offer_review_steps')
    .select(['at', 'kind', 'actor', 'operator', 'reason', 'changed_fields'])
    .where('offer_id', '=', offerId)
    .orderBy('at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.reverse();
}

/** How long the last DECISIONS_READ decisions took (seconds), overall or in one category. */
export async function decisionDurations(db: Db, categoryId?: number): Promise<number[]> {
  let q = db
    .selectFrom('offer_review_steps')
    .select('waited_seconds')
    .where('kind', 'in', ['approved', 'rejected'])
    .where('waited_seconds', 'is not', null);
  if (categoryId !== undefined) q = q.where('category_id', '=', categoryId);
  const rows = await q.orderBy('at', 'desc').limit(DECISIONS_READ).execute();
  return rows.map((r) => Number(r.waited_seconds));
}

/** The last DECISIONS_READ decisions' durations of every category that has any (the console's chart). */
export async function decisionDurationsByCategory(db: Db): Promise<Map<number, number[]>> {
  const { rows } = await sql<{ category_id: number; waited_seconds: number }>`
    select category_id, waited_seconds from (
      select category_id, waited_seconds, row_number() over (partition by category_id order by at desc) as n
        from offer_review_steps
       where kind in ('approved', 'rejected') and waited_seconds is not null and category_id is not null) d
     where n <= ${DECISIONS_READ}`.execute(db);
  const by = new Map<number, number[]>();
  for (const r of rows) by.set(r.category_id, [...(by.get(r.category_id) ?? []), Number(r.waited_seconds)]);
  return by;
}

/** The place of a pending offer in the review queue (1: next), in the console's order; null when not pending. */
export async function queuePlace(db: Db, offerId: string): Promise<number | null> {
  const { rows } = await sql<{ place: string }>`
    select (select count(*) from offers q
             where q.status = 'pending'
               and (q.review_due_at, q.submitted_at, q.id) < (o.review_due_at, o.submitted_at, o.id)) + 1 as place
      from offers o where o.id = ${offerId} and o.status = 'pending'`.execute(db);
  return rows.length ? Number(rows[0].place) : null;
}
