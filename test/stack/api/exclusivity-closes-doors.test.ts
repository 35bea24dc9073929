import { sql } from 'kysely';
import { setEndpoint } from '../../../store/callback-endpoints';
import { approveSignal } from '../../../workflows/offer-review-messages';
import { offerReviewWorkflowId, reservationWorkflowId } from '../../../workflows/shared/ids';
import { CallbackReceiver, type ReceivedCallback } from '../../setup/callback-receiver';
import { eventually } from '../../setup/eventually';
import { validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

type Client = { key: string; clientId: string };
type FeedEvent = { type: string; offer_id: string; data: { voucher_id?: string; offer: { title: string; quantity_in_stock: number } } };

/**
 * Issue 34 (findings 4 and 5): an edit that makes a public offer exclusive to others closes every
 * door to the distributors it leaves out. Their holds end with the edit; the vouchers they sold stay
 * redeemable and show the offer as it was sold, in events, callbacks and the customer's page.
 */
describe('an exclusivity edit closes every door', () => {
  let h: Harness;
  let sub: Client;
  let insider: Client;
  let outsider: Client;
  const today = new Date().toISOString().slice(0, 10);
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    sub = await h.client('submission');
    insider = await h.client('distribution', { reservations: true });
    outsider = await h.client('distribution', { reservations: true });
  });
  afterAll(() => h.close());

  const call = (key: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload: payload as object } : {}) });
  const account = async (c: Client) => {
    const id = (await call(c.key, 'POST', `${DIST}/accounts`, { account: { name: 'Blog' } })).json().account.id as string;
    expect((await call(c.key, 'PUT', `${DIST}/accounts/${id}`, { account: { status: 'active' } })).statusCode).toBe(200);
    return id;
  };
  const reserve = (c: Client, offerId: string, accountId: string, quantity: number) =>
    call(c.key, 'POST', `${DIST}/offers/${offerId}/reservations`, {
      reservation: { account_id: accountId, quantity_reserved: quantity, start_date: today, end_date: '2099-01-01' },
    });
  const order = (c: Client, offerId: string, quantity: number) =>
    call(c.key, 'POST', `${DIST}/orders`, {
      order: {
        order_number: `door-${Math.random().toString(36).slice(2)}`,
        customer_name: 'Ada Lovelace',
        items: [{ offer_id: offerId, quantity }],
      },
    });
  const move = (offerId: string, status: string) => call(sub.key, 'PUT', `${SUB}/offers/${offerId}`, { offer: { status } });
  const stock = (offerId: string) =>
    h.services.db
      .selectFrom('offers')
      .select(['quantity_in_stock', 'reserved_quantity'])
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow();
  const reservationRow = (id: string) =>
    h.services.db.selectFrom('reservations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  /** A public offer, approved through its review workflow. */
  const publicOffer = async () => {
    const created = await call(sub.key, 'POST', `${SUB}/offers`, { offer: validOffer({ title: 'Open to all', initial_quantity: 10 }) });
    const offerId = created.json().offer.id as string;
    await approve(offerId);
    return offerId;
  };
  const approve = async (offerId: string) => {
    await h.services.temporal.workflow.getHandle(offerReviewWorkflowId(offerId)).signal(approveSignal, { reviewer: 'Ana' });
    await waitForOfferStatus(h, offerId, 'approved');
  };
  /** The advertiser withdraws the offer and makes it exclusive to the insider, renamed. */
  const makeExclusive = async (offerId: string) => {
    expect((await move(offerId, 'withdrawn')).statusCode).toBe(200);
    const edit = await call(sub.key, 'PUT', `${SUB}/offers/${offerId}`, {
      offer: { title: 'Insiders only', exclusivity: { exclusive: true, channels: [insider.clientId] } },
    });
    expect(edit.statusCode).toBe(200);
  };

  it("ends the left-out distributor's holds with the edit, workflows included: no back door to the stock", async () => {
    const offerId = await publicOffer();
    const outHold = (await reserve(outsider, offerId, await account(outsider), 3)).json().reservation.id as string;
    const inHold = (await reserve(insider, offerId, await account(insider), 1)).json().reservation.id as string;
    expect(await stock(offerId)).toEqual({ quantity_in_stock: 6, reserved_quantity: 4 });
    await makeExclusive(offerId);

    // The edit's transaction ended the outsider's hold, its units back in general stock; the insider's stays.
    expect(await reservationRow(outHold)).toMatchObject({ status: 'cancelled', end_reason: 'offer_exclusive', quantity_in_stock: 0 });
    expect(await reservationRow(inHold)).toMatchObject({ status: 'active', quantity_in_stock: 1 });
    expect(await stock(offerId)).toEqual({ quantity_in_stock: 9, reserved_quantity: 1 });
    const stockEvent = await h.services.db
      .selectFrom('offer_events')
      .select('data')
      .where('offer_id', '=', offerId)
      .where('type', '=', 'offer.stock_changed')
      .where(sql`data->>'reason'`, '=', 'offer_exclusive')
      .executeTakeFirstOrThrow();
    expect(stockEvent.data).toMatchObject({ change: 3, reserved_change: -3 });
    // Its reservation-window workflow is told and ends, instead of waiting for 2099.
    expect(await h.services.temporal.workflow.getHandle(reservationWorkflowId(outHold)).result()).toEqual({ status: 'cancelled' });

    // No back door: the hold cannot be raised (it drained the stock before), nor the offer read, held or ordered.
    const raise = await call(outsider.key, 'PUT', `${DIST}/offers/${offerId}/reservations/${outHold}`, {
      reservation: { quantity_reserved: 5 },
    });
    expect(raise.statusCode).toBe(409);
    expect((await move(offerId, 'pending')).statusCode).toBe(200);
    await approve(offerId);
    expect((await call(outsider.key, 'GET', `${DIST}/offers/${offerId}`)).statusCode).toBe(404);
    expect((await reserve(outsider, offerId, await account(outsider), 1)).statusCode).toBe(404);
    expect((await order(outsider, offerId, 1)).statusCode).toBe(422);
    // The named channel gets every unit left.
    expect((await order(insider, offerId, 9)).statusCode).toBe(200);
  });

  it('leaves its vouchers redeemable, showing the offer as sold: feed, callback, customer and print pages', async () => {
    const receiver = await new CallbackReceiver().start();
    try {
      await setEndpoint(h.services.db, { clientId: outsider.clientId, url: receiver.url, format: 'json', secretKeys: undefined });
      const offerId = await publicOffer();
      const sold = await order(outsider, offerId, 1);
      expect(sold.statusCode).toBe(200);
      const voucher = sold.json().order.vouchers[0] as { id: string; print_url: string };
      await makeExclusive(offerId);
      expect((await move(offerId, 'pending')).statusCode).toBe(200);
      await approve(offerId);
      expect((await order(insider, offerId, 9)).statusCode).toBe(200);

      // The outsider's voucher stays redeemable...
      const redeemed = await call(sub.key, 'PUT', `${SUB}/offers/${offerId}/vouchers/${voucher.id}`, { voucher: { status: 'redeemed' } });
      expect(redeemed.statusCode).toBe(200);
      // ...and what the outsider hears of it is the offer as it sold it (stock 9 after its sale), feed and callback alike.
      const asSold = (data: FeedEvent['data']) => {
        expect(data.voucher_id).toBe(voucher.id);
        expect(data.offer).toMatchObject({ id: offerId, title: 'Open to all', quantity_in_stock: 9 });
      };
      const feed = await call(outsider.key, 'GET', `${DIST}/events?limit=500`);
      const fed = (feed.json().events as FeedEvent[]).filter((e) => e.offer_id === offerId);
      // The events of the time the offer was open to the outsider stay in its feed (decision 0074); after the
      // exclusivity edit, only what concerns its own voucher.
      expect(fed.map((e) => e.type)).toEqual(['offer.published', 'offer.changed', 'offer.suspended', 'voucher.redeemed']);
      asSold(fed.at(-1)!.data);
      const callbacks = await eventually('the voucher.redeemed callback', () => {
        const got = receiver.received.filter((c: ReceivedCallback) => c.json?.data?.voucher_id === voucher.id);
        return got.length > 0 && got;
      });
      expect(callbacks.map((c) => c.json.type)).toEqual(['voucher.redeemed']);
      asSold(callbacks[0].json.data);
      // The advertiser hears of the offer as it is now.
      const advertiserFeed = (await call(sub.key, 'GET', `${SUB}/events?limit=500`)).json().events as FeedEvent[];
      const mine = advertiserFeed.filter((e) => e.offer_id === offerId && e.type === 'voucher.redeemed');
      expect(mine[0].data.offer.title).toBe('Insiders only');
      // The customer's page, and the distributor's print page, show it as sold too.
      for (const page of [
        await h.app.inject({ method: 'GET', url: new URL(voucher.print_url).pathname }),
        await call(outsider.key, 'GET', `${DIST}/vouchers/${voucher.id}/print`),
      ]) {
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain('Open to all');
        expect(page.body).not.toContain('Insiders only');
      }
    } finally {
      await receiver.stop();
    }
  });
});
