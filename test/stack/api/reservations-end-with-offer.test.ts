import { changeOfferStatus } from '../../../store/offers';
import { approveSignal } from '../../../workflows/offer-review-messages';
import { offerReviewWorkflowId, reservationWorkflowId } from '../../../workflows/shared/ids';
import { seedOffer, validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { harnessWithKeys, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/** Issue 20 item 8: cancelling or closing an offer ends its reservations in the same step. */
describe('reservations end with their offer', () => {
  let h: Harness;
  let sub: { key: string; clientId: string };
  let dist: string;
  let accountId: string;
  const today = new Date().toISOString().slice(0, 10);
  beforeAll(async () => {
    ({ h, dist, sub } = await harnessWithKeys({ reservations: true }));
    accountId = (await call(dist, 'POST', `${DIST}/accounts`, { account: { name: 'Corner Blog' } })).json().account.id;
    expect((await call(dist, 'PUT', `${DIST}/accounts/${accountId}`, { account: { status: 'active' } })).statusCode).toBe(200);
  });
  afterAll(() => h.close());

  const call = (key: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload: payload as object } : {}) });
  const offerStock = (id: string) =>
    h.services.db.selectFrom('offers').select(['quantity_in_stock', 'reserved_quantity']).where('id', '=', id).executeTakeFirstOrThrow();
  const reserve = async (offerId: string, quantity: number) => {
    const res = await call(dist, 'POST', `${DIST}/offers/${offerId}/reservations`, {
      reservation: { account_id: accountId, quantity_reserved: quantity, start_date: today, end_date: '2099-01-01' },
    });
    expect(res.statusCode).toBe(200);
    return res.json().reservation.id as string;
  };
  const reservation = async (offerId: string, id: string) =>
    (await call(dist, 'GET', `${DIST}/offers/${offerId}/reservations/${id}`)).json().reservation;

  it('an advertiser cancelling the offer (DELETE) cancels its reservations, with the reason, units back in stock', async () => {
    const created = await call(sub.key, 'POST', `${SUB}/offers`, { offer: validOffer({ initial_quantity: 10 }) });
    const offerId = created.json().offer.id as string;
    await h.services.temporal.workflow.getHandle(offerReviewWorkflowId(offerId)).signal(approveSignal, { reviewer: 'Ana' });
    await waitForOfferStatus(h, offerId, 'approved');
    const held = await reserve(offerId, 4);
    expect(await offerStock(offerId)).toEqual({ quantity_in_stock: 6, reserved_quantity: 4 });

    expect((await call(sub.key, 'DELETE', `${SUB}/offers/${offerId}`)).statusCode).toBe(200);
    // The DELETE answered once the workflow's step committed: the reservation ended in that same step.
    expect(await reservation(offerId, held)).toMatchObject({
      status: 'cancelled',
      end_reason: 'offer_cancelled',
      quantity_in_stock: 0,
      ended_at: expect.any(String),
    });
    expect(await offerStock(offerId)).toEqual({ quantity_in_stock: 10, reserved_quantity: 0 });
    // Its reservation-window workflow is told and ends, instead of waiting for end_date (2099).
    const ended = await h.services.temporal.workflow.getHandle(reservationWorkflowId(held)).result();
    expect(ended).toEqual({ status: 'cancelled' });
    expect(await reservation(offerId, held)).toMatchObject({ status: 'cancelled', end_reason: 'offer_cancelled' });
    const xml = await call(dist, 'GET', `${DIST}/offers/${offerId}/reservations/${held}.xml`);
    expect(xml.body).toContain('<status>cancelled</status>');
    expect(xml.body).toContain('<end_reason>offer_cancelled</end_reason>');
    // Nothing is sold from it afterwards, and it cannot be changed or cancelled again.
    const order = await call(dist, 'POST', `${DIST}/orders`, {
      order: { order_number: `after-${held}`, customer_name: 'Kim', account_id: accountId, items: [{ offer_id: offerId, quantity: 1 }] },
    });
    expect(order.statusCode).toBe(422);
    expect(
      (await call(dist, 'PUT', `${DIST}/offers/${offerId}/reservations/${held}`, { reservation: { quantity_reserved: 5 } })).statusCode,
    ).toBe(409);
    expect((await call(dist, 'DELETE', `${DIST}/offers/${offerId}/reservations/${held}`)).statusCode).toBe(409);
  });

  it('closing the offer (the review workflow at end_date) ends every active reservation as offer_closed', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const a = await reserve(offerId, 2);
    const b = await reserve(offerId, 3);
    // One unit sold through the first hold: only the rest goes back.
    const sold = await call(dist, 'POST', `${DIST}/orders`, {
      order: { order_number: `through-${a}`, customer_name: 'Kim', account_id: accountId, items: [{ offer_id: offerId, quantity: 1 }] },
    });
    expect(sold.statusCode).toBe(200);
    expect(await offerStock(offerId)).toEqual({ quantity_in_stock: 5, reserved_quantity: 4 });
    // What the review workflow's recordOfferStatus activity runs when end_date is over.
    await changeOfferStatus(h.services.db, { key: `close:${offerId}`, offerId, to: 'closed', actor: 'system' });
    for (const id of [a, b])
      expect(await reservation(offerId, id)).toMatchObject({ status: 'cancelled', end_reason: 'offer_closed', quantity_in_stock: 0 });
    expect(await offerStock(offerId)).toEqual({ quantity_in_stock: 9, reserved_quantity: 0 });
    const events = await h.services.db
      .selectFrom('offer_events')
      .select(['type', 'data'])
      .where('offer_id', '=', offerId)
      .orderBy('sequence', 'desc')
      .limit(2)
      .execute();
    expect(events.map((e) => e.type)).toEqual(['offer.closed', 'offer.stock_changed']);
    expect(events[1].data).toMatchObject({ reason: 'offer_closed', change: 4, reserved_change: -4 });
  });

  it('a reservation the client cancels says so', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const id = await reserve(offerId, 1);
    expect((await call(dist, 'DELETE', `${DIST}/offers/${offerId}/reservations/${id}`)).statusCode).toBe(200);
    expect(await reservation(offerId, id)).toMatchObject({ status: 'cancelled', end_reason: 'cancelled_by_client' });
  });
});
