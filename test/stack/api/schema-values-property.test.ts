import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import type { z } from 'zod';
import { AccountCreate, AccountUpdate } from '../../../schemas/account';
import { CommentInput, CommentUpdate } from '../../../schemas/comment';
import { Currency, DATE_MAX, DATE_MIN, DateString, MAX_MONEY_AMOUNT } from '../../../schemas/common';
import { SignupCreate } from '../../../schemas/developer-signup';
import { OfferInput, OfferUpdate } from '../../../schemas/offer';
import { OrderCreate } from '../../../schemas/order';
import { ReservationCreate, ReservationUpdate } from '../../../schemas/reservation';
import { utcDay } from '../../../domain/dates';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { arbitraryOf, jsonValue, type Overrides } from '../../setup/zod-arbitrary';
import { DEV, DIST, SUB } from '../../setup/paths';

/*
 * One truth for what is valid (issue 19, part 1): every body a route's zod schema accepts is one
 * the database stores. Bodies are generated from the schemas themselves (test/setup/zod-arbitrary:
 * their lengths, bounds, enums and patterns, the bounds most often) and written through the real
 * routes, services, workflows and Postgres. An answer may be a 2xx or a business refusal the
 * route documents; never a 5xx, and never a value Postgres refused (an error with a `sqlstate`).
 */

const RUNS = 30;
/**
 * Per run: a step that hangs (a workflow retrying a value forever) fails within 20 s rather than at
 * the test's own timeout; the first counterexample is reported as found (no shrinking, which would
 * wait out that timeout again and again), with its error in the message.
 */
const RUN_OPTIONS = { numRuns: RUNS, timeout: 20_000, endOnFailure: true, includeErrorInReport: true };
jest.setTimeout(240_000);

const day = (s: string) => new Date(`${s}T00:00:00Z`);
/** Days from DATE_MIN to DATE_MAX, the bounds and the years around today most often. */
const dateArb = fc
  .oneof(
    fc.constantFrom(DATE_MIN, DATE_MAX),
    fc.date({ min: day(utcDay()), max: new Date(Date.now() + 3 * 365 * 86_400_000), noInvalidDate: true }).map((d) => utcDay(d)),
    fc.date({ min: day(DATE_MIN), max: day(DATE_MAX), noInvalidDate: true }).map((d) => utcDay(d)),
  )
  .map((d) => d);

const schemas = new Map<z.ZodType, fc.Arbitrary<unknown>>([
  [DateString, dateArb],
  // The ISO 4217 refinement is a list, not a pattern: pick from it, the zero- and three-decimal ones too.
  [Currency.shape.currency_code, fc.constantFrom('USD', 'EUR', 'JPY', 'KWD', 'CHF')],
]);

type Json = Record<string, any>;

/** The answer is stored or a documented business refusal: one of `allowed`, and never a value Postgres refused. */
function expectStored(res: LightMyRequestResponse, allowed: number[], sent: unknown, statuses?: number[]): Json {
  statuses?.push(res.statusCode);
  const body = res.json() as Json;
  const refusedByPostgres = (body.errors ?? []).some((e: Json) => e.sqlstate !== undefined);
  if (!allowed.includes(res.statusCode) || refusedByPostgres)
    throw new Error(
      `answered ${res.statusCode} (allowed ${allowed.join(', ')}): ${res.body.slice(0, 2000)}\nfor ${JSON.stringify(sent).slice(0, 4000)}`,
    );
  return body;
}

/** Where a refusal is allowed, most generated bodies must still be stored, or the property proves little. */
const expectMostlyStored = (statuses: number[]) =>
  expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(Math.floor(statuses.length / 2));

/** Values the schema accepts: generated, then checked by the schema itself (refinements across fields). */
const accepted = (schema: z.ZodType, arb: fc.Arbitrary<unknown>): fc.Arbitrary<Json> =>
  arb.map((v) => jsonValue(v) as Json).filter((v) => schema.safeParse(v).success);

let unique = 0;
/** A generated offer made consistent across fields (the rules of offerRules), so most runs are accepted. */
function consistentOffer(o: Json): Json {
  const offer = jsonValue(o);
  [offer.start_date, offer.end_date] = [offer.start_date, offer.end_date].sort();
  if (offer.discount) {
    if (offer.discount.type === 'percentage') offer.discount.percentage ??= 50;
    else offer.discount.amount ??= { currency_code: 'USD', amount: 100 };
  }
  if (offer.vouchers_expire) {
    if (offer.vouchers_expire.on !== undefined) delete offer.vouchers_expire.days_after_purchase;
    else offer.vouchers_expire.days_after_purchase ??= 30;
    if (offer.vouchers_expire.on && offer.vouchers_expire.on < offer.start_date) offer.vouchers_expire.on = offer.end_date;
  }
  if (offer.vouchers) {
    // Codes are unique across the whole service: a prefix of this run keeps them apart, within the 64 characters.
    const run = `r${++unique}x`;
    offer.vouchers = offer.vouchers.map((v: Json, i: number) => ({ ...v, redemption_code: `${run}${i}${v.redemption_code}`.slice(0, 64) }));
    delete offer.initial_quantity;
  }
  if (offer.type !== 'coupon') {
    offer.price ??= { currency_code: 'USD', amount: 4500 };
    if (!offer.vouchers) offer.initial_quantity ??= 10;
    delete offer.checkins_required;
  }
  if (offer.type !== 'deal') delete offer.items;
  if (offer.price && offer.value) {
    offer.value.currency_code = offer.price.currency_code;
    offer.value.amount = Math.max(offer.value.amount, offer.price.amount);
  }
  const demo = offer.demographics;
  if (demo?.min_age !== undefined && demo.max_age !== undefined && demo.min_age > demo.max_age)
    [demo.min_age, demo.max_age] = [demo.max_age, demo.min_age];
  for (const loc of offer.advertiser.redemption_locations ?? []) {
    if ((loc.latitude === undefined) !== (loc.longitude === undefined)) {
      delete loc.latitude;
      delete loc.longitude;
    }
  }
  return offer;
}

/** start_date before end_date where both are given (a schema rule; most generated pairs would break it). */
function inOrder(r: Json): Json {
  if (r.start_date !== undefined && r.end_date !== undefined) [r.start_date, r.end_date] = [r.start_date, r.end_date].sort();
  return r;
}

const offerOverrides: Overrides = {
  schemas,
  paths: {
    // Existing categories (an unknown one is a 422 the service documents, tested elsewhere).
    'advertiser.categories[].id': fc.constantFrom(2, 3, 11, 44),
    'creative.original_media': fc.constant([]),
    'advertiser.id': fc.constant(undefined),
    // Channels must name existing distribution clients (422 otherwise: offer-exclusivity.test.ts).
    'exclusivity.channels': fc.constant(undefined),
  },
};
const offerArb = accepted(
  OfferInput,
  arbitraryOf(OfferInput, offerOverrides).map((o) => consistentOffer(o as Json)),
);

describe('schema-valid values are stored: no route answers a generated valid body with a 5xx or a database error', () => {
  let h: Harness;
  let sub: string;
  let dist: string;
  let subClient: string;
  let account: string;
  let editable: string;
  let orderOffers: string[];
  let reservationOffer: string;

  const call = (key: string, method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload: payload as object } : {}) });

  beforeAll(async () => {
    h = await createHarness({ worker: true, env: { DEVELOPER_SIGNUP: 'on' }, fixed: { DEVELOPER_SIGNUPS_PER_HOUR: 1000 } });
    ({ key: sub, clientId: subClient } = await h.client('submission'));
    dist = await h.key('distribution', { reservations: true });
    account = (await call(dist, 'POST', `${DIST}/accounts`, { account: { name: 'Property Blog' } })).json().account.id;
    expect((await call(dist, 'PUT', `${DIST}/accounts/${account}`, { account: { status: 'active' } })).statusCode).toBe(200);
    const created = await call(sub, 'POST', `${SUB}/offers`, { offer: validOffer() });
    editable = created.json().offer.id;
    expect((await call(sub, 'PUT', `${SUB}/offers/${editable}`, { offer: { status: 'withdrawn' } })).statusCode).toBe(200);
    const stocked = { initial_quantity: 10_000_000, end_date: '2999-12-31', vouchers_expire: { days_after_purchase: 30 } };
    orderOffers = [
      await seedOffer(h, subClient, stocked),
      await seedOffer(h, subClient, { ...stocked, price: { currency_code: 'USD', amount: 0 } }),
    ];
    reservationOffer = await seedOffer(h, subClient, stocked);
  });
  afterAll(() => h.close());

  it('dates: the bounds are stored, a day past either is a 422 naming the field (never a database error)', async () => {
    for (const [start, end] of [
      [DATE_MIN, DATE_MIN],
      [DATE_MAX, DATE_MAX],
    ]) {
      const res = await call(sub, 'POST', `${SUB}/offers`, {
        offer: validOffer({ start_date: start, end_date: end, vouchers_expire: { on: end }, vouchers_activation_date: start }),
      });
      expect(expectStored(res, [200], start).offer).toMatchObject({ start_date: start, end_date: end, vouchers_expire: { on: end } });
    }
    const outside: Array<[string, Json]> = [
      ['start_date', { start_date: '0000-01-01' }],
      ['start_date', { start_date: '1999-12-31' }],
      ['end_date', { end_date: '3000-01-01' }],
      ['vouchers_activation_date', { vouchers_activation_date: '0000-01-01' }],
      ['vouchers_expire.on', { vouchers_expire: { on: '0000-01-01' } }],
      ['exclusivity.until', { exclusivity: { exclusive: true, until: '0000-01-01' } }],
    ];
    for (const [field, change] of outside) {
      const res = await call(sub, 'POST', `${SUB}/offers`, { offer: validOffer(change) });
      expect([field, res.statusCode]).toEqual([field, 422]);
      expect(res.json().errors).toContainEqual(
        expect.objectContaining({ field, message: `${field}: must be from ${DATE_MIN} to ${DATE_MAX}` }),
      );
    }
    const reservation = await call(dist, 'POST', `${DIST}/offers/${reservationOffer}/reservations`, {
      reservation: { account_id: account, quantity_reserved: 1, start_date: '0000-01-01', end_date: '2030-01-01' },
    });
    expect(reservation.statusCode).toBe(422);
    expect(reservation.json().errors[0].field).toBe('start_date');
  });

  it('money: the largest price, times the most units an item buys, is stored and sold; one more is a 422', async () => {
    const price = { currency_code: 'USD', amount: MAX_MONEY_AMOUNT };
    const offerId = await seedOffer(h, subClient, { price, value: price, initial_quantity: 1000 });
    const order = { order_number: `max-money-${Date.now()}`, customer_name: 'Ada Lovelace', items: [{ offer_id: offerId, quantity: 100 }] };
    const placed = expectStored(await call(dist, 'POST', `${DIST}/orders`, { order }), [200], order);
    expect(placed.order.vouchers).toHaveLength(100);
    const past = await call(sub, 'POST', `${SUB}/offers`, {
      offer: validOffer({ price: { ...price, amount: MAX_MONEY_AMOUNT + 1 } }),
    });
    expect(past.statusCode).toBe(422);
    expect(past.json().errors[0].field).toBe('price.amount');
  });

  it('coordinates: a hair above zero is a 422 (such points made the location index underflow, failing every later insert); 0 and 0.0000001 are stored', async () => {
    const at = (latitude: number, longitude: number) =>
      validOffer({
        advertiser: {
          ...(validOffer().advertiser as object),
          redemption_locations: [{ city: 'Null Island', country_code: 'US', latitude, longitude }],
        },
      });
    const tiny = await call(sub, 'POST', `${SUB}/offers`, { offer: at(1e-200, 1e-200) });
    expect(tiny.statusCode).toBe(422);
    expect(tiny.json().errors[0].field).toBe('advertiser.redemption_locations[0].latitude');
    for (const [lat, lng] of [
      [0, 0],
      [1e-7, -1e-7],
    ])
      expectStored(await call(sub, 'POST', `${SUB}/offers`, { offer: at(lat, lng) }), [200], { lat, lng });
  });

  it('POST /offers stores every generated offer, exactly as sent', async () => {
    await fc.assert(
      fc.asyncProperty(offerArb, async (offer) => {
        const res = await call(sub, 'POST', `${SUB}/offers`, { offer });
        const stored = expectStored(res, [200], offer).offer;
        expect(stored).toMatchObject({ start_date: offer.start_date, end_date: offer.end_date, title: offer.title.trim() });
        expect(stored.price).toEqual(offer.price);
      }),
      RUN_OPTIONS,
    );
  });

  it('PUT /offers/:id stores every generated edit of a withdrawn offer that keeps the whole offer valid', async () => {
    // Supplied codes are not an edit of an offer created without them (a documented 422): left out.
    const editArb = offerArb.chain((o) =>
      fc
        .subarray(
          Object.keys(o).filter((k) => k !== 'vouchers'),
          { minLength: 1 },
        )
        .map((keys) => Object.fromEntries(keys.map((k) => [k, o[k]])))
        .filter((edit) => OfferUpdate.safeParse(edit).success),
    );
    const statuses: number[] = [];
    await fc.assert(
      fc.asyncProperty(editArb, async (edit) => {
        // The edit is merged into the offer and the whole checked (a 422 across fields): generate edits that pass.
        const current = (await call(sub, 'GET', `${SUB}/offers/${editable}`)).json().offer;
        fc.pre(OfferInput.safeParse({ ...current, ...edit }).success);
        const res = await call(sub, 'PUT', `${SUB}/offers/${editable}`, { offer: edit });
        const body = expectStored(res, [200, 409, 422], edit, statuses);
        if (res.statusCode === 200 && edit.start_date) expect(body.offer.start_date).toBe(edit.start_date);
      }),
      RUN_OPTIONS,
    );
    expectMostlyStored(statuses);
  });

  it('comments: POST and PUT store every generated comment', async () => {
    const input = accepted(CommentInput, arbitraryOf(CommentInput, { schemas, paths: { attachments: fc.constant([]) } }));
    const update = accepted(CommentUpdate, arbitraryOf(CommentUpdate, { schemas, paths: { attachments: fc.constant(undefined) } }));
    await fc.assert(
      fc.asyncProperty(input, update, async (comment, change) => {
        const url = `${SUB}/offers/${editable}/comments`;
        const created = expectStored(await call(sub, 'POST', url, { comment }), [200], comment).comment;
        expect(created.content).toBe(comment.content.trim());
        expectStored(await call(sub, 'PUT', `${url}/${created.id}`, { comment: change }), [200], change);
      }),
      RUN_OPTIONS,
    );
  });

  it('accounts: POST and PUT store every generated account', async () => {
    const create = accepted(AccountCreate, arbitraryOf(AccountCreate, { schemas }));
    const update = accepted(
      AccountUpdate,
      arbitraryOf(AccountUpdate, { schemas, paths: { status: fc.constantFrom(undefined, 'active') } }),
    );
    await fc.assert(
      fc.asyncProperty(create, update, async (a, change) => {
        const created = expectStored(await call(dist, 'POST', `${DIST}/accounts`, { account: a }), [200], a).account;
        expect(created.name).toBe(a.name.trim());
        expectStored(await call(dist, 'PUT', `${DIST}/accounts/${created.id}`, { account: change }), [200], change);
      }),
      RUN_OPTIONS,
    );
  });

  it('orders: POST stores every generated order (a reused order_number is the documented 409)', async () => {
    const order = accepted(
      OrderCreate,
      arbitraryOf(OrderCreate, {
        schemas,
        paths: { 'items[].offer_id': fc.constantFrom(...orderOffers), account_id: fc.constantFrom(undefined, account) },
      }).map((o) => {
        const v = o as Json;
        // Each offer once per order (a schema rule): keep the first line of each.
        v.items = v.items.filter((it: Json, i: number) => v.items.findIndex((x: Json) => x.offer_id === it.offer_id) === i);
        return v;
      }),
    );
    const statuses: number[] = [];
    await fc.assert(
      fc.asyncProperty(order, async (o) => {
        const body = expectStored(await call(dist, 'POST', `${DIST}/orders`, { order: o }), [200, 409], o, statuses);
        if (body.order) expect(body.order).toMatchObject({ order_number: o.order_number.trim(), customer_name: o.customer_name.trim() });
      }),
      RUN_OPTIONS,
    );
    expectMostlyStored(statuses);
  });

  it('reservations: POST and PUT store every generated hold, or refuse it as the business does (past end, stock, one per account)', async () => {
    const create = accepted(
      ReservationCreate,
      arbitraryOf(ReservationCreate, { schemas, paths: { account_id: fc.constant(account) } }).map((r) => inOrder(r as Json)),
    );
    const update = accepted(
      ReservationUpdate,
      arbitraryOf(ReservationUpdate, { schemas }).map((r) => inOrder(r as Json)),
    );
    const [created, changed]: number[][] = [[], []];
    await fc.assert(
      fc.asyncProperty(create, update, async (r, change) => {
        const url = `${DIST}/offers/${reservationOffer}/reservations`;
        const body = expectStored(await call(dist, 'POST', url, { reservation: r }), [200, 409, 422], r, created);
        if (!body.reservation) return;
        expect(body.reservation).toMatchObject({ start_date: r.start_date, end_date: r.end_date });
        expectStored(await call(dist, 'PUT', `${url}/${body.reservation.id}`, { reservation: change }), [200, 409, 422], change, changed);
        // Free the hold, so the next run's stock and one-per-account rule start over.
        await h.app.inject({ method: 'DELETE', url: `${url}/${body.reservation.id}`, headers: { 'x-service-api-key': dist } });
      }),
      RUN_OPTIONS,
    );
    expectMostlyStored(created);
    expectMostlyStored(changed);
  });

  it('developer sign-ups: POST stores every generated sign-up (an address used before is the documented 409)', async () => {
    const signup = accepted(SignupCreate, arbitraryOf(SignupCreate, { schemas }));
    await fc.assert(
      fc.asyncProperty(signup, async (s) => {
        // An address of its own: sign-up budgets are counted in the suite's one Postgres, for every test file.
        const res = await h.app.inject({
          method: 'POST',
          url: `${DEV}/signups`,
          payload: { signup: s },
          remoteAddress: '192.0.2.149',
        });
        expectStored(res, [200, 201, 409], s);
      }),
      RUN_OPTIONS,
    );
  });
});
