import { sql, type SqlBool } from 'kysely';
import type { Db } from './db';
import type { Page } from '../domain/paging';
import { pageOf } from './paging';

/*
 * The review queue: reads of the offers waiting for review (status pending), for the review
 * console, the admin CLI and /metrics. Offers are written by store/offers.ts only.
 */

/** One page of the offers waiting for review, the earliest due first (the review console's queue; store/offer-reviews.ts `queuePlace` counts in this order). */
export function listPendingOffers(db: Db, page: Page, filter: PendingFilter = {}) {
  let q = db.selectFrom('offers').where('status', '=', 'pending');
  if (filter.type) q = q.where('type', '=', filter.type);
  if (filter.categoryId !== undefined)
    q = q.where(
      sql<SqlBool>`exists (select 1 from offer_categories c where c.offer_id = offers.id and c.category_id = ${filter.categoryId})`,
    );
  if (filter.submittedBefore) q = q.where('submitted_at', '<=', filter.submittedBefore);
  // Overdue first (the earliest due time), each with its due time and first category (its expected time).
  return pageOf(q, page, (rows) =>
    rows
      .select(['id', 'title', 'type', 'document', 'submitted_at', 'review_due_at', 'category_ids'])
      .orderBy('review_due_at')
      .orderBy('submitted_at')
      .orderBy('id'),
  );
}

/** The review queue's filters: an offer type, a category, and a latest submission time (for "waiting at least"). */
export interface PendingFilter {
  type?: string;
  categoryId?: number;
  submittedBefore?: Date;
}

/** The first `limit` offers waiting for review, oldest submission first (the admin CLI's list). */
export function pendingOffers(db: Db, limit: number) {
  return db
    .selectFrom('offers')
    .select(['id', 'title', 'type', 'client_id', 'submitted_at'])
    .where('status', '=', 'pending')
    .orderBy('submitted_at')
    .limit(limit)
    .execute();
}

/** An offer's status and review record, for operators; undefined for an unknown id. */
export function findReviewRecord(db: Db, offerId: string) {
  return db
    .selectFrom('offers')
    .select([
      'id',
      'title',
      'type',
      'status',
      'client_id',
      'advertiser_id',
      'quantity_in_stock',
      'submitted_at',
      'reviewed_at',
      'reviewed_by',
      'rejection_reason',
      'published_at',
      'closed_at',
    ])
    .where('id', '=', offerId)
    .executeTakeFirst();
}

/** The review queue at a glance (for /metrics): how many offers wait and how long the oldest has waited, by the database's clock. */
export async function reviewQueueStats(db: Db): Promise<{ length: number; oldestAgeSeconds: number }> {
  const row = await db
    .selectFrom('offers')
    .select([
      sql<string>`count(*)`.as('length'),
      sql<string>`coalesce(extract(epoch from now() - min(submitted_at)), 0)`.as('oldest_age_seconds'),
    ])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { length: Number(row.length), oldestAgeSeconds: Math.max(0, Number(row.oldest_age_seconds)) };
}
