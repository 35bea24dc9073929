import { sql } from 'kysely';
import type { OfferEventRow } from './database';
import { listen, type Db, type Listener, type Trx } from './db';
import { derivedId } from './ids';
import { eventsWithDeliveries } from './callback-deliveries';
import { prunablePrefix } from '../domain/event-feed';

/*
 * The offers' outbox: every change to an offer appends one event here, in the same transaction,
 * with the offer's next sequence number. Callbacks deliver these (store/callback-fanout.ts reads them).
 */

export type OfferEventType =
  | 'offer.created'
  | 'offer.status_changed'
  | 'offer.published'
  | 'offer.updated'
  | 'offer.review_overdue'
  /** An operator opened the pending review in the console (store/offer-reviews.ts). */
  | 'offer.review_started'
  | 'offer.stock_changed'
  | 'offer.sold_out'
  | 'offer.closed'
  /** A voucher of the offer was redeemed (a gift card: partly or wholly); docs/callbacks.md. */
  | 'voucher.redeemed'
  | 'voucher.redemption_rolled_back'
  /** A partly spent gift card's order was cancelled: its unspent balance is void (store/orders.ts). */
  | 'voucher.balance_voided';

/**
 * Events addressed to one client, about no offer: a monthly statement was stored (docs/statements.md
 * "Monthly statements"); a callback endpoint of its was disabled after failing too long (docs/callbacks.md).
 */
export type ClientEventType = 'statement.ready' | 'endpoint.disabled' | 'voucher_import.completed' | 'offer_import.completed';

/** Columns of the offer row that change together with its event (stock moves). */
export type OfferRowChange = { quantity_in_stock: number; reserved_quantity: number; availabilityChanged: boolean };

/**
 * Appends an event with the offer's next sequence number; returns its id. The offer row must be
 * locked or new. `offerChange` adds values to the offer's stock columns in the same statement, so
 * a stock move with its event is one round trip to the database.
 */
export async function appendOfferEvent(
  trx: Trx,
  e: { key: string; offerId: string; type: OfferEventType; data: Record<string, unknown>; offerChange?: OfferRowChange },
): Promise<string> {
  const id = derivedId('evt', e.key);
  const change = e.offerChange;
  await trx
    .with('offer', (db) =>
      db
        .updateTable('offers')
        .set((eb) => ({
          event_sequence: eb('event_sequence', '+', 1),
          ...(change && {
            quantity_in_stock: eb('quantity_in_stock', '+', change.quantity_in_stock),
            reserved_quantity: eb('reserved_quantity', '+', change.reserved_quantity),
            ...(change.availabilityChanged && { availability_changed_at: new Date() }),
          }),
        }))
        .where('id', '=', e.offerId)
        .returning('event_sequence'),
    )
    .insertInto('offer_events')
    .columns(['id', 'offer_id', 'sequence', 'type', 'data'])
    .expression((eb) =>
      eb
        .selectFrom('offer')
        .select([
          sql<string>`${id}::text`.as('id'),
          sql<string>`${e.offerId}::text`.as('offer_id'),
          'offer.event_sequence',
          sql<string>`${e.type}::text`.as('type'),
          sql<string>`${JSON.stringify(e.data)}::jsonb`.as('data'),
        ]),
    )
    .executeTakeFirstOrThrow();
  return id;
}

/**
 * Appends an event for one client alone (no offer): the feed and the callbacks carry it to that
 * client only. Its id is derived from `key`, so appending it again changes nothing.
 */
export async function appendClientEvent(
  trx: Trx,
  e: { key: string; clientId: string; type: ClientEventType; data: Record<string, unknown> },
): Promise<string> {
  const id = derivedId('evt', e.key);
  await trx
    .insertInto('offer_events')
    .values({ id, offer_id: null, client_id: e.clientId, sequence: 1, type: e.type, data: JSON.stringify(e.data) })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return id;
}

/** True when the step with this key already committed (its event exists): the retry is a no-op. */
export async function alreadyDone(trx: Trx, key: string): Promise<boolean> {
  return !!(await trx.selectFrom('offer_events').select('id').where('id', '=', derivedId('evt', key)).executeTakeFirst());
}

/**
 * Up to `limit` events not yet turned into deliveries, oldest first, locked for this transaction
 * (SKIP LOCKED: concurrent dispatchers never take the same event).
 */
export function takeUndispatchedEvents(trx: Trx, limit: number): Promise<OfferEventRow[]> {
  return trx
    .selectFrom('offer_events')
    .selectAll()
    .where('dispatched_at', 'is', null)
    .orderBy('created_at')
    .orderBy('sequence')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Marks these events as turned into deliveries (the dispatcher's transaction took them). */
export async function markEventsDispatched(trx: Trx, ids: string[]): Promise<void> {
  await trx.updateTable('offer_events').set({ dispatched_at: new Date() }).where('id', 'in', ids).execute();
}

/** One outbox event by its id. */
export function findOfferEvent(db: Db | Trx, id: string): Promise<OfferEventRow | undefined> {
  return db.selectFrom('offer_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The channel the `offer_events_notify` trigger (migration 0006) notifies on every committed insert. */
const OFFER_EVENTS_CHANNEL = 'offer_events';

/** Calls `onEvents` whenever a transaction that appended outbox events commits. */
export function listenForOfferEvents(db: Db, onEvents: () => void): Promise<Listener> {
  return listen(db, OFFER_EVENTS_CHANNEL, onEvents);
}

/*
 * The change feed (docs/change-feed.md): the outbox read by `feed_position`, a number given to an
 * event only after its transaction committed, by one numbering transaction at a time. Why not the
 * order of writing: see docs/decisions/0038-change-feed-commit-ordered-position.md.
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
    await numberInOneTransaction(db);
  } catch (err) {
    // Deleting a pending offer deletes its events (cascade) and may deadlock with this update; the
    // next read numbers them (readers read numbered events only, so nothing is lost meanwhile).
    if ((err as { code?: string }).code !== DEADLOCK) throw err;
  }
}

const DEADLOCK = '40P01';

async function numberInOneTransaction(db: Db): Promise<void> {
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
}

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

/** How long ago the oldest event kept was written, in seconds (for /metrics; the offer_events_created index); undefined when none. */
export async function oldestOfferEventAge(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('offer_events')
    .select(sql<string>`extract(epoch from now() - created_at)`.as('age'))
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return row ? Math.max(0, Number(row.age)) : undefined;
}
