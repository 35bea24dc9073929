import fc from 'fast-check';
import { planOrders, type BatchPlan, type OrderChanges } from '../../domain/order-plan';
import { accountKey, heldKey, type OfferForSale, type OrderState, type PlanTools, type UsableReservation } from '../../domain/order-state';
import type { PlaceOrderInput } from '../../domain/orders';
import { saleRules } from '../../domain/sales';
import { DEFAULT_REVENUE_SHARES } from '../../domain/money';
import { customerKey } from '../../domain/customer-identity';

/*
 * The placing plan (domain/order-plan.ts) without a database: random batches of orders against
 * random locked rows, and what must hold whatever they are: no offer, reservation or supplied code
 * oversold, each customer within limit_per_customer, a reservation's units before general stock,
 * every voucher id and code issued once, a refused order changing nothing.
 */

const TODAY = '2026-11-28';
const CLIENT = 'cli_1';
const OFFER_IDS = ['ofr_a', 'ofr_b', 'ofr_c'];
const ACCOUNTS = ['acc_1', 'acc_2'];

const offerArb = (id: string) =>
  fc
    .record({
      stock: fc.option(fc.nat(8), { nil: null }),
      supplied: fc.boolean(),
      limitPerCustomer: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      limitPerOrder: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      holds: fc.array(fc.record({ account: fc.constantFrom(...ACCOUNTS), units: fc.integer({ min: 1, max: 4 }) }), { maxLength: 3 }),
      sequence: fc.nat(50),
    })
    .map((o) => ({ id, ...o, supplied: o.supplied && o.stock !== null, holds: o.stock === null ? [] : o.holds }));

const orderArb = fc.record({
  number: fc.constantFrom('n1', 'n2', 'n3', 'n4', 'n5', 'n6'),
  account: fc.constantFrom(null, ...ACCOUNTS),
  customer: fc.constantFrom('Ada', 'Grace', ' ada '),
  items: fc.uniqueArray(fc.record({ offer_id: fc.constantFrom(...OFFER_IDS), quantity: fc.integer({ min: 1, max: 4 }) }), {
    selector: (i) => i.offer_id,
    minLength: 1,
    maxLength: 3,
  }),
});

const worldArb = fc.record({
  offers: fc.tuple(...OFFER_IDS.map(offerArb)),
  held: fc.array(fc.tuple(fc.constantFrom(...OFFER_IDS), fc.constantFrom('Ada', 'Grace'), fc.nat(3)), { maxLength: 4 }),
  orders: fc.array(orderArb, { minLength: 1, maxLength: 12 }),
  existing: fc.subarray(['n1', 'n2']),
});
type World = typeof worldArb extends fc.Arbitrary<infer W> ? W : never;

function setUp(w: World) {
  const reservations: UsableReservation[] = w.offers.flatMap((o) =>
    o.holds.map((h, k) => ({
      id: `rsv_${o.id}_${k}`,
      offer_id: o.id,
      account_id: h.account,
      client_id: CLIENT,
      quantity_in_stock: h.units,
    })),
  );
  const offers = new Map<string, OfferForSale>(
    w.offers.map((o) => [
      o.id,
      {
        id: o.id,
        status: 'approved',
        type: 'deal',
        start_date: '2026-01-01',
        end_date: '2027-12-31',
        quantity_in_stock: o.stock,
        reserved_quantity: o.holds.reduce((n, h) => n + h.units, 0),
        sells_supplied_codes: o.supplied,
        event_sequence: o.sequence,
        document: { restrictions: { limit_per_customer: o.limitPerCustomer, limit_per_order: o.limitPerOrder } },
      },
    ]),
  );
  const state: OrderState = {
    today: TODAY,
    offers,
    accounts: new Map(ACCOUNTS.map((a) => [accountKey(CLIENT, a), { status: 'active' as const }])),
    reservations,
    held: new Map(w.held.map(([offer, name, n]) => [heldKey(offer, CLIENT, customerKey(null, name)), n])),
    // Supplied codes: as many unissued as the offer's stock (the service keeps them equal).
    codes: new Map(w.offers.filter((o) => o.supplied).map((o) => [o.id, codesOf(o.id, o.stock ?? 0)])),
    existing: new Map(w.existing.map((n) => [`ord_${n}`, { id: `ord_${n}`, request_id: 'an-earlier-request' }])),
  };
  const orders: PlaceOrderInput[] = w.orders.map((o, i) => ({
    orderKey: `order:${CLIENT}:${o.number}`,
    orderId: `ord_${o.number}`,
    clientId: CLIENT,
    orderNumber: o.number,
    accountId: o.account,
    applicationId: null,
    customerName: o.customer,
    shippingAddress: null,
    items: o.items,
    requestId: `batch/${i}`,
  }));
  let n = 0;
  const tools: PlanTools = {
    rules: saleRules,
    shares: DEFAULT_REVENUE_SHARES,
    derivedId: (p, k) => `${p}_${k}`,
    newCode: () => `CODE-${n++}`,
  };
  return { state, orders, plan: planOrders(orders, state, tools) };
}

const codesOf = (offerId: string, n: number) =>
  Array.from({ length: n }, (_, k) => ({ id: `sv_${offerId}_${k}`, redemption_code: `SUP-${offerId}-${k}`, barcode: null }));

const placedOf = (plan: BatchPlan): OrderChanges[] => plan.decisions.flatMap((d) => (d.kind === 'placed' ? [d.changes] : []));

describe('the placing plan (domain/order-plan.ts), for any batch', () => {
  it('never oversells an offer, a reservation or its supplied codes', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { state, plan } = setUp(w);
        const vouchers = placedOf(plan).flatMap((c) => c.vouchers);
        for (const offer of state.offers.values()) {
          if (offer.quantity_in_stock === null) continue;
          const mine = vouchers.filter((v) => v.offer_id === offer.id);
          const general = mine.filter((v) => v.reservation_id === null).length;
          const reserved = mine.length - general;
          expect(general).toBeLessThanOrEqual(offer.quantity_in_stock);
          const after = plan.offers.find((o) => o.id === offer.id);
          expect(after?.quantity_in_stock ?? offer.quantity_in_stock).toBe(offer.quantity_in_stock - general);
          expect(after?.reserved_quantity ?? offer.reserved_quantity).toBe(offer.reserved_quantity - reserved);
        }
        for (const r of state.reservations)
          expect(vouchers.filter((v) => v.reservation_id === r.id).length).toBeLessThanOrEqual(r.quantity_in_stock);
      }),
    );
  });

  it('keeps every customer within limit_per_customer', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { state, plan } = setUp(w);
        const vouchers = placedOf(plan).flatMap((c) => c.vouchers);
        for (const offer of w.offers) {
          if (offer.limitPerCustomer === undefined) continue;
          for (const customer of new Set(vouchers.filter((v) => v.offer_id === offer.id).map((v) => v.customer_key))) {
            const held = state.held.get(heldKey(offer.id, CLIENT, customer)) ?? 0;
            const sold = vouchers.filter((v) => v.offer_id === offer.id && v.customer_key === customer).length;
            expect(held + sold).toBeLessThanOrEqual(offer.limitPerCustomer);
          }
        }
      }),
    );
  });

  it("takes an account's reserved units before general stock", () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { state, plan } = setUp(w);
        const left = new Map(state.reservations.map((r) => [r.id, r.quantity_in_stock]));
        for (const c of placedOf(plan)) {
          for (const take of c.reservationTakes) left.set(take.reservation_id, left.get(take.reservation_id)! - take.units);
          for (const item of c.items) {
            const general = c.vouchers.filter((v) => v.offer_id === item.offer_id && v.reservation_id === null).length;
            if (general === 0 || !c.order.account_id) continue;
            // Units from general stock: the account had no reservation of this offer with units left after this order.
            const holding = state.reservations.filter(
              (r) => r.offer_id === item.offer_id && r.account_id === c.order.account_id && left.get(r.id)! > 0,
            );
            const drewFrom = c.reservationTakes.find(
              (t) => state.reservations.find((r) => r.id === t.reservation_id)?.offer_id === item.offer_id,
            );
            if (drewFrom) expect(left.get(drewFrom.reservation_id)).toBe(0);
            else expect(holding).toEqual([]);
          }
        }
      }),
    );
  });

  it('issues each voucher id and each code once, supplied codes only those available', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { state, plan } = setUp(w);
        const vouchers = placedOf(plan).flatMap((c) => c.vouchers);
        expect(new Set(vouchers.map((v) => v.id)).size).toBe(vouchers.length);
        expect(new Set(vouchers.map((v) => v.redemption_code)).size).toBe(vouchers.length);
        const available = new Set([...state.codes.values()].flatMap((codes) => codes.map((c) => c.id)));
        const issued = placedOf(plan).flatMap((c) => c.codesIssued);
        expect(issued.every((id) => available.has(id))).toBe(true);
        expect(issued.sort()).toEqual(
          vouchers
            .filter((v) => v.supplied)
            .map((v) => v.id)
            .sort(),
        );
      }),
    );
  });

  it('answers every order once: placed at most once per order_number, a refusal writing nothing', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { orders, plan } = setUp(w);
        expect(plan.decisions).toHaveLength(orders.length);
        const placed = placedOf(plan);
        expect(new Set(placed.map((c) => c.order.id)).size).toBe(placed.length);
        for (const c of placed) {
          const asked = c.items.reduce((n, i) => n + i.quantity, 0);
          expect(c.vouchers).toHaveLength(asked);
          expect(c.vouchers.every((v) => v.order_id === c.order.id)).toBe(true);
        }
        // Orders already there (another request) are duplicates, never placed again.
        for (const n of w.existing) expect(placed.some((c) => c.order.order_number === n)).toBe(false);
        // Each event numbered once per offer, after the offer's last.
        const events = placed.flatMap((c) => c.events);
        expect(new Set(events.map((e) => `${e.offer_id}:${e.sequence}`)).size).toBe(events.length);
      }),
    );
  });
});

describe('the placing plan, by example', () => {
  const world = (orders: World['orders'], stock = 3): World => ({
    offers: [
      { id: 'ofr_a', stock, supplied: false, limitPerCustomer: undefined, limitPerOrder: undefined, holds: [], sequence: 7 },
      { id: 'ofr_b', stock: null, supplied: false, limitPerCustomer: undefined, limitPerOrder: undefined, holds: [], sequence: 0 },
      { id: 'ofr_c', stock: 0, supplied: false, limitPerCustomer: undefined, limitPerOrder: undefined, holds: [], sequence: 0 },
    ],
    held: [],
    orders,
    existing: [],
  });

  it('a refused order leaves its units to the next one, and the last unit sells the offer out', () => {
    const { plan } = setUp(
      world([
        { number: 'n1', account: null, customer: 'Ada', items: [{ offer_id: 'ofr_a', quantity: 2 }] },
        {
          number: 'n2',
          account: null,
          customer: 'Ada',
          items: [
            { offer_id: 'ofr_a', quantity: 1 },
            { offer_id: 'ofr_c', quantity: 1 },
          ],
        },
        { number: 'n3', account: null, customer: 'Ada', items: [{ offer_id: 'ofr_a', quantity: 1 }] },
      ]),
    );
    expect(plan.decisions.map((d) => (d.kind === 'refused' ? d.refusal.code : d.kind))).toEqual(['placed', 'insufficient_stock', 'placed']);
    const events = placedOf(plan).flatMap((c) => c.events);
    expect(events.map((e) => [e.sequence, e.type])).toEqual([
      [8, 'offer.stock_changed'],
      [9, 'offer.sold_out'],
    ]);
    expect(plan.offers).toEqual([
      { id: 'ofr_a', quantity_in_stock: 0, reserved_quantity: 0, event_sequence: 9, availabilityChanged: true },
    ]);
  });

  it('the same order_number twice in one batch: the second is a duplicate naming the order', () => {
    const { plan } = setUp(
      world([
        { number: 'n1', account: null, customer: 'Ada', items: [{ offer_id: 'ofr_b', quantity: 1 }] },
        { number: 'n1', account: null, customer: 'Ada', items: [{ offer_id: 'ofr_b', quantity: 1 }] },
      ]),
    );
    expect(plan.decisions[1]).toMatchObject({ kind: 'refused', refusal: { code: 'duplicate', order_id: 'ord_n1' } });
  });
});
