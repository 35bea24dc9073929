import type { PlaceOrderInput } from './orders';
import { Failure } from './failures';
import type { AvailableCode, OfferForSale, OrderState, PlanTools, UsableReservation } from './order-state';

/*
 * The stock a batch of orders draws from while it is decided (domain/order-plan.ts): each offer's
 * general and reserved units, each reservation's units, each customer's live vouchers, each offer's
 * supplied codes, starting from the rows locked for the batch. An order takes through `begin()`,
 * which sees what the earlier orders took and keeps its own takes apart until `commit()`: a refused
 * order leaves the batch's stock as it found it.
 */

/** An offer's stock event (`offer.stock_changed`, or `offer.sold_out` when general stock reaches 0), numbered after the offer's last. */
export interface StockEvent {
  id: string;
  offer_id: string;
  sequence: number;
  type: 'offer.stock_changed' | 'offer.sold_out';
  data: Record<string, unknown>;
}

/** What one item took: from which reservation and how many units, the general stock after it, and its event. */
export interface TakenUnits {
  reservationId: string | null;
  fromReservation: number;
  stockAfter: number | null;
  event?: StockEvent;
}

interface OfferCounts {
  stock: number;
  reserved: number;
  sequence: number;
  availabilityChanged: boolean;
}

/** The batch's counts so far: committed orders' takes over the locked rows. */
export class BatchStock {
  readonly offers = new Map<string, OfferCounts>();
  readonly reservationsLeft = new Map<string, number>();
  readonly held = new Map<string, number>();
  readonly codesUsed = new Map<string, number>();

  constructor(
    readonly state: OrderState,
    readonly derivedId: PlanTools['derivedId'],
  ) {}

  /** A new order's takes: read through to the batch's, kept apart until committed. */
  begin(): OrderTake {
    return new OrderTake(this);
  }

  /** The offers the batch moved, with their counts and last event number. */
  offersAfter() {
    return [...this.offers].map(([id, c]) => ({
      id,
      quantity_in_stock: c.stock,
      reserved_quantity: c.reserved,
      event_sequence: c.sequence,
      availabilityChanged: c.availabilityChanged,
    }));
  }
}

/** One order's takes, seen by its later items, made the batch's by `commit()`. */
export class OrderTake {
  private readonly offers = new Map<string, OfferCounts>();
  private readonly reservationsLeft = new Map<string, number>();
  private readonly heldNow = new Map<string, number>();
  private readonly codesUsed = new Map<string, number>();

  constructor(private readonly batch: BatchStock) {}

  private counts(o: OfferForSale): OfferCounts {
    const fresh = {
      stock: o.quantity_in_stock ?? 0,
      reserved: o.reserved_quantity,
      sequence: o.event_sequence,
      availabilityChanged: false,
    };
    return this.offers.get(o.id) ?? this.batch.offers.get(o.id) ?? fresh;
  }

  private left(r: UsableReservation): number {
    return this.reservationsLeft.get(r.id) ?? this.batch.reservationsLeft.get(r.id) ?? r.quantity_in_stock;
  }

  /** The customer's live vouchers of an offer (heldKey), with what this batch sold them so far. */
  held(key: string): number {
    return this.heldNow.get(key) ?? this.batch.held.get(key) ?? this.batch.state.held.get(key) ?? 0;
  }

  hold(key: string, n: number): void {
    this.heldNow.set(key, this.held(key) + n);
  }

  /** Item `i`'s units: from the account's oldest usable reservation first, then from general stock. */
  units(o: PlaceOrderInput, i: number, offer: OfferForSale): TakenUnits {
    const { quantity } = o.items[i];
    if (offer.quantity_in_stock === null) return { reservationId: null, fromReservation: 0, stockAfter: null };
    const res = o.accountId
      ? this.batch.state.reservations.find(
          (r) => r.offer_id === offer.id && r.account_id === o.accountId && r.client_id === o.clientId && this.left(r) > 0,
        )
      : undefined;
    const fromReservation = res ? Math.min(quantity, this.left(res)) : 0;
    const general = quantity - fromReservation;
    const before = this.counts(offer);
    if (before.stock < general) {
      const available = before.stock + fromReservation;
      throw new Failure('insufficient_stock', `offer ${offer.id} has ${available} unit(s) available for this order, ${quantity} asked`, {
        field: `items[${i}].quantity`,
        offer_id: offer.id,
        available,
      });
    }
    if (res && fromReservation > 0) this.reservationsLeft.set(res.id, this.left(res) - fromReservation);
    const after: OfferCounts = {
      stock: before.stock - general,
      reserved: before.reserved - fromReservation,
      sequence: before.sequence + 1,
      availabilityChanged: before.availabilityChanged || (before.stock === 0) !== (before.stock - general === 0),
    };
    this.offers.set(offer.id, after);
    const event: StockEvent = {
      id: this.batch.derivedId('evt', `${o.orderKey}:place:${offer.id}`),
      offer_id: offer.id,
      sequence: after.sequence,
      type: after.stock === 0 && before.stock > 0 ? 'offer.sold_out' : 'offer.stock_changed',
      data: {
        quantity_in_stock: after.stock,
        reserved_quantity: after.reserved,
        change: -general,
        reserved_change: -fromReservation,
        reason: 'order_placed',
      },
    };
    return { reservationId: res && fromReservation > 0 ? res.id : null, fromReservation, stockAfter: after.stock, event };
  }

  /** The offer's next `quantity` supplied codes, oldest first (none for an offer whose codes are generated). */
  codes(offer: OfferForSale, quantity: number): readonly AvailableCode[] {
    if (!offer.sells_supplied_codes) return [];
    const all = this.batch.state.codes.get(offer.id) ?? [];
    const from = this.codesUsed.get(offer.id) ?? this.batch.codesUsed.get(offer.id) ?? 0;
    if (all.length - from < quantity) {
      throw new Failure('insufficient_stock', `offer ${offer.id} has ${all.length - from} supplied code(s) left, ${quantity} asked`, {
        offer_id: offer.id,
        available: all.length - from,
      });
    }
    this.codesUsed.set(offer.id, from + quantity);
    return all.slice(from, from + quantity);
  }

  /** The order is placed: its takes become the batch's. */
  commit(): void {
    for (const [k, v] of this.offers) this.batch.offers.set(k, v);
    for (const [k, v] of this.reservationsLeft) this.batch.reservationsLeft.set(k, v);
    for (const [k, v] of this.heldNow) this.batch.held.set(k, v);
    for (const [k, v] of this.codesUsed) this.batch.codesUsed.set(k, v);
  }
}
