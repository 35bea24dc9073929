import type { CallbackEndpointRow, OfferEventRow, OfferRow } from './database';
import type { Db } from './db';
import { derivedId, newId } from './ids';
import { findOfferEvent, markEventsDispatched, takeUndispatchedEvents } from './offer-events';
import { findOffersByIds } from './offers';
import { offersAsSold } from './orders';
import type { FoundOffer } from './distribution-search';
import { soldItemKey, soldItemOf } from '../domain/event-feed';
import { enabledEndpoints, type EndpointAudience } from './callback-endpoints';
import { laneKey, pendingLanes, uniqueLanes, type DeliveryLane } from './callback-deliveries';

/*
 * The outbox fan-out: offer events (offer_events, the source of truth) become delivery rows, one
 * per (event, endpoint) that must hear of it, before any workflow is woken to send them.
 */

/**
 * What one endpoint receives for one event: its callback type and body, or null when it need not
 * hear of it. Built by schemas/callback-event.ts (`callbackBuilder`) and passed in by the
 * dispatcher, so the delivery rows are written in its own transaction.
 */
export type CallbackFor = (
  event: OfferEventRow,
  offer: OfferRow | null,
  endpoint: EndpointAudience,
  /** For a voucher event, its offer as the voucher's order sold it (store/orders.ts `offersAsSold`). */
  asSold?: FoundOffer,
) => { type: string; payload: unknown } | null;

/** The order items voucher events among these are about (domain/event-feed.ts `soldItemOf`). */
const soldItems = (events: OfferEventRow[]) => events.flatMap((e) => soldItemOf(e) ?? []);

/** The lane a delivery waits in: the offer's (its events in order); an event for one client alone is a lane of its own. */
const laneOf = (event: Pick<OfferEventRow, 'id' | 'offer_id'>) => event.offer_id ?? event.id;

type Endpoint = Pick<CallbackEndpointRow, 'id' | 'client_id' | 'created_at' | 'event_types' | 'max_per_second'> & EndpointAudience;

/** An endpoint with `event_types` receives those alone (empty: all): a filtered type never becomes a delivery. */
const wants = (ep: Pick<Endpoint, 'event_types'>, type: string) => !ep.event_types.length || ep.event_types.includes(type);

/** Who receives one event, under which type, with which body; the offer's row is read at dispatch time. */
function deliveriesFor(
  event: OfferEventRow,
  offer: OfferRow | null,
  endpoints: Endpoint[],
  callbackFor: CallbackFor,
  sold: Map<string, FoundOffer>,
  replay = false,
) {
  const item = soldItemOf(event);
  const asSold = item && sold.get(soldItemKey(item));
  const rows = [];
  for (const ep of endpoints) {
    // An endpoint hears about changes made after it was set, not the history before it.
    if (!replay && new Date(ep.created_at) > new Date(event.created_at)) continue;
    const callback = callbackFor(event, offer, ep, asSold);
    if (!callback || !wants(ep, callback.type)) continue;
    rows.push({
      id: replay ? newId('dlv') : derivedId('dlv', `${ep.id}:${event.id}`),
      endpoint_id: ep.id,
      event_id: event.id,
      offer_id: laneOf(event),
      sequence: event.sequence,
      type: callback.type,
      payload: JSON.stringify(callback.payload),
      replay,
    });
  }
  return rows;
}

/** A delivery the dispatcher attempts itself, leased to it (see dispatchEvents). */
export interface LeasedDelivery {
  deliveryId: string;
  lane: DeliveryLane;
}

/** What one dispatch did: events taken, lanes whose workflow must be woken now, deliveries leased to the caller. */
export interface Dispatched {
  events: number;
  lanes: DeliveryLane[];
  leased: LeasedDelivery[];
}

/**
 * Turns up to `limit` undispatched outbox events into delivery rows and marks them dispatched, in
 * one transaction (SKIP LOCKED, so concurrent dispatchers never take the same event). A crash
 * before the wake-up loses nothing: `staleLanes` finds those rows again.
 *
 * Fan-out fast path: in a lane with nothing pending before this batch, the batch's first delivery
 * is leased to the caller for `lease.seconds` (at most `lease.slots` of them), who attempts it at
 * once without waking the lane's workflow; the lane's workflow leaves a leased head alone, so the
 * lane's order holds. Every other delivery's lane is returned to be woken now, unless the lane's
 * head is leased (the caller wakes it after its attempt).
 */
export async function dispatchEvents(
  db: Db,
  limit: number,
  callbackFor: CallbackFor,
  lease: { slots: number; seconds: number } = { slots: 0, seconds: 0 },
): Promise<Dispatched> {
  return db.transaction().execute(async (trx) => {
    const events = await takeUndispatchedEvents(trx, limit);
    if (!events.length) return { events: 0, lanes: [], leased: [] };
    const offerIds = [...new Set(events.flatMap((e) => (e.offer_id ? [e.offer_id] : [])))];
    const offers = new Map((await findOffersByIds(trx, offerIds)).map((o) => [o.id, o]));
    // Submission endpoints of the offers' owners, and of the clients events are addressed to.
    const clientIds = [
      ...new Set([...[...offers.values()].map((o) => o.client_id), ...events.flatMap((e) => (e.client_id ? [e.client_id] : []))]),
    ];
    const endpoints = await enabledEndpoints(trx)
      .where((eb) =>
        eb.or([eb('c.interface', '=', 'distribution'), eb.and([eb('c.interface', '=', 'submission'), eb('e.client_id', 'in', clientIds)])]),
      )
      .execute();
    const sold = await offersAsSold(trx, soldItems(events));
    const rows: (ReturnType<typeof deliveriesFor>[number] & { leased_until?: Date })[] = events.flatMap((ev) => {
      const offer = ev.offer_id ? offers.get(ev.offer_id) : null;
      return offer !== undefined && endpoints.length ? deliveriesFor(ev, offer, endpoints, callbackFor, sold) : [];
    });
    // A paced endpoint's attempts take its slots in turn (store/callback-attempts.ts), never the pump's fast path.
    const paced = new Set(endpoints.flatMap((e) => (e.max_per_second !== null ? [e.id] : [])));
    const leased: LeasedDelivery[] = [];
    if (rows.length && lease.slots > 0) {
      const busy = new Set((await pendingLanes(trx, [...new Set(events.map(laneOf))])).map(laneKey));
      const until = new Date(Date.now() + lease.seconds * 1000);
      // Events come oldest first, so a lane's first row here is its lowest sequence.
      for (const r of rows) {
        if (leased.length >= lease.slots) break;
        const key = laneKey({ endpointId: r.endpoint_id, offerId: r.offer_id });
        if (busy.has(key) || paced.has(r.endpoint_id)) continue;
        busy.add(key);
        r.leased_until = until;
        leased.push({ deliveryId: r.id, lane: { endpointId: r.endpoint_id, offerId: r.offer_id } });
      }
    }
    if (rows.length)
      await trx
        .insertInto('callback_deliveries')
        .values(rows)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    await markEventsDispatched(
      trx,
      events.map((e) => e.id),
    );
    const leasedLanes = new Set(leased.map((l) => laneKey(l.lane)));
    const lanes = uniqueLanes(rows.map((r) => ({ endpointId: r.endpoint_id, offerId: r.offer_id }))).filter(
      (l) => !leasedLanes.has(laneKey(l)),
    );
    return { events: events.length, lanes, leased };
  });
}

/** New deliveries of one event (same event id, so receivers that kept it can drop it), to one endpoint or to all it went to before. */
export async function replayEvent(
  db: Db,
  eventId: string,
  callbackFor: CallbackFor,
  endpointId?: string,
): Promise<{ deliveries: string[]; lanes: DeliveryLane[] }> {
  const event = await findOfferEvent(db, eventId);
  if (!event) return { deliveries: [], lanes: [] };
  const [offer] = event.offer_id ? await findOffersByIds(db, [event.offer_id]) : [null];
  if (offer === undefined) throw new Error(`offer ${event.offer_id} of event ${eventId} not found`);
  let q = enabledEndpoints(db);
  if (endpointId) q = q.where('e.id', '=', endpointId);
  else q = q.where('e.id', 'in', db.selectFrom('callback_deliveries').select('endpoint_id').where('event_id', '=', eventId));
  const rows = deliveriesFor(event, offer, await q.execute(), callbackFor, await offersAsSold(db, soldItems([event])), true);
  if (rows.length) await db.insertInto('callback_deliveries').values(rows).execute();
  return { deliveries: rows.map((r) => r.id), lanes: uniqueLanes(rows.map((r) => ({ endpointId: r.endpoint_id, offerId: r.offer_id }))) };
}
