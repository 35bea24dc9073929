import { sql } from 'kysely';
import type { OfferEventRow } from './database';
import type { Db } from './db';
import { eventsWithDeliveries } from './callback-deliveries';
import { prunablePrefix } from '../domain/event-feed';

/*
 * The change feed (docs/change-feed.md): the outbox (store/offer-events.ts appends to it) read by
 * `feed_position`, a number given to an event only after its transaction committed, by one
 * numbering transaction at a time, and pruned from the bottom, the feed_floor table keeping where.
 * Why not the order of writing: see docs/decisions/0038-change-feed-commit-ordered-position.md.
 */

/** The advisory lock that makes the numbering a single writer. */
const FEED_NUMBERING_LOCK = sql`hashtext('offer_events.feed_position')`;

/**
 * Gives every committed event without a feed position the next positions, after all positions
 * given before (one numbering at a time: the advisory lock). Its statement sees exactly the events
 * committed before it began; an event committing later gets a higher position from a later
 * numbering, so a reader that saw position N never misses an event placed below N. One offer's
 * events are numbered in their `sequence` order: its event n+1 was written under the offer's row
 * lock after event n committed, so a snapshot that sees n+1 sees n (numbered then or earlier).
 * Across offers, in the order they happened (the running latest `created_at` of the offer's events,
 * so that order never breaks an offer's own).
 */
export async function numberCommittedEvents(db: Db): Promise<void> {
  try {
    await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${FEED_NUMBERING_LOCK})`.execute(trx);
      await sql`
        with head as (select greatest(coalesce(max(feed_position), 0), ${FLOOR}) as n from offer_events),
        fresh as (
          select id, coalesce(offer_id, id) as lane, sequence,
                 max(created_at) over (partition by coalesce(offer_id, id) order by sequence) as settled
          from offer_events where feed_position is null
        ),
        ranked as (select id, row_number() over (order by settled, lane, sequence) as r from fresh)
        update offer_events e
           set feed_position = head.n + ranked.r, fed_at = clock_timestamp()
          from ranked, head
         where e.id = ranked.id`.execute(trx);
    });
  } catch (err) {
    // Deleting a pending offer deletes its events (cascade) and may deadlock with this update; the
    // next read numbers them (readers read numbered events only, so nothing is lost meanwhile).
    if ((err as { code?: string }).code !== DEADLOCK) throw err;
  }
}

const DEADLOCK = '40P01';

/** The floor (migration 0046): the highest position pruned; numbering continues above it. */
const FLOOR = sql<number>`(select coalesce(max(position), 0) from feed_floor)`;

/** The highest feed position given so far (0 when none; the floor when every event was pruned). */
export async function feedHead(db: Db): Promise<number> {
  const row = await db
    .selectFrom('offer_events')
    .select(sql<string>`greatest(coalesce(max(feed_position), 0), ${FLOOR})`.as('head'))
    .executeTakeFirst();
  return Number(row?.head ?? 0);
}

/**
 * What a cursor at feed position `position` can still reach, read in one statement (one snapshot,
 * so a prune committing meanwhile is seen whole or not at all): the floor, below which events are
 * gone, and when the first event after it got its place (`fed_at`): how old the oldest event a
 * reader there has not seen is (undefined when none follows it).
 */
export async function cursorReach(db: Db, position: number): Promise<{ floor: number; nextFedAt: Date | undefined }> {
  const { rows } = await sql<{ floor: string; next_fed_at: Date | null }>`
    select ${FLOOR} as floor,
           (select fed_at from offer_events where feed_position > ${String(position)} order by feed_position limit 1) as next_fed_at`.execute(
    db,
  );
  return { floor: Number(rows[0].floor), nextFedAt: rows[0].next_fed_at ?? undefined };
}

/**
 * Whose events a feed page reads: one submission client's offers, or offers ever published; and,
 * either way, the events addressed to this client alone.
 */
export type FeedScope = { clientId: string; publishedOffers?: false } | { clientId: string; publishedOffers: true };

/**
 * Up to `limit` numbered events after position `after` (and, when given, created at or after
 * `since`), in feed order, of the offers in `scope`. The caller applies the finer visibility rule.
 */
export function readFeedEvents(
  db: Db,
  q: { after: number; since?: Date; scope: FeedScope; limit: number },
): Promise<(OfferEventRow & { feed_position: string; fed_at: Date })[]> {
  let query = db
    .selectFrom('offer_events as e')
    .leftJoin('offers as o', 'o.id', 'e.offer_id')
    .selectAll('e')
    .where('e.feed_position', '>', String(q.after))
    .orderBy('e.feed_position')
    .limit(q.limit);
  if (q.since) query = query.where('e.created_at', '>=', q.since);
  const { clientId, publishedOffers } = q.scope;
  query = query.where((eb) =>
    eb.or([publishedOffers ? eb('o.published_at', 'is not', null) : eb('o.client_id', '=', clientId), eb('e.client_id', '=', clientId)]),
  );
  return query.execute() as Promise<(OfferEventRow & { feed_position: string; fed_at: Date })[]>;
}

/**
 * Deletes up to `limit` events from the bottom of the feed that every cursor has had the window to
 * read (placed more than `keepSeconds` ago, by the database's clock), that are dispatched and that no
 * kept callback delivery needs (domain/event-feed.ts `prunablePrefix`), and raises the floor to the
 * last of them, in one transaction; answers how many it deleted (fewer than `limit`: done for now).
 */
export async function pruneFeedEvents(db: Db, a: { keepSeconds: number; limit: number }): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // One at a time with the numbering: positions are handed out above the floor this moves.
    await sql`select pg_advisory_xact_lock(${FEED_NUMBERING_LOCK})`.execute(trx);
    const { rows } = await sql<{ id: string; position: string; old: boolean; dispatched: boolean }>`
      select id, feed_position as position, fed_at < now() - make_interval(secs => ${a.keepSeconds}) as old,
             dispatched_at is not null as dispatched
        from offer_events where feed_position > ${FLOOR} order by feed_position limit ${a.limit}
         for update`.execute(trx);
    // Read once the rows are locked: a replay that committed a delivery before is seen; one after waits.
    const held = new Set(
      await eventsWithDeliveries(
        trx,
        rows.map((r) => r.id),
      ),
    );
    const gone = prunablePrefix(rows.map((r) => ({ ...r, position: Number(r.position), held: held.has(r.id) })));
    if (!gone.length) return 0;
    await trx
      .deleteFrom('offer_events')
      .where(
        'id',
        'in',
        gone.map((g) => g.id),
      )
      .execute();
    await trx
      .updateTable('feed_floor')
      .set({ position: gone[gone.length - 1].position, moved_at: sql<Date>`now()` })
      .execute();
    return gone.length;
  });
}
