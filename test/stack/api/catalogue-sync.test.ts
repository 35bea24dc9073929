import { approveSignal } from '../../../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../../../workflows/shared/ids';
import { seedOffer, validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { harnessWithKeys, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

const DAY = 86_400_000;

/*
 * The incremental catalogue sync of docs/distribution-search.md: what recently_updated and
 * recently_closed report, so a publisher's copy loses nothing and is not flooded by sales.
 */
describe('incremental catalogue sync', () => {
  let h: Harness;
  let sub: { key: string; clientId: string };
  let dist: string;
  beforeAll(async () => {
    ({ h, dist, sub } = await harnessWithKeys());
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, key = dist, body?: unknown) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(body === undefined ? {} : { payload: body as object }) });
  /** Every offer a sync for the last day fetches (all pages), by id. */
  const sync = async () => {
    const found = new Map<string, { closed_at: string | null; updated_at: string; quantity_in_stock: number | null }>();
    for (let page = 1; page <= 100; page++) {
      const res = await call('GET', `${DIST}/offers?recently_updated=1&recently_closed=1&sort_by=updated_at+asc&per_page=100&page=${page}`);
      expect(res.statusCode).toBe(200);
      for (const o of res.json().offers) found.set(o.id, o);
      if (page * 100 >= res.json().total) break;
    }
    return found;
  };
  const offerRow = (id: string) => h.services.db.selectFrom('offers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const order = async (offerId: string, quantity: number, n: string) => {
    const res = await call('POST', `${DIST}/orders`, dist, {
      order: { order_number: `sync-${n}-${offerId}`, customer_name: 'Ada', items: [{ offer_id: offerId, quantity }] },
    });
    expect(res.statusCode).toBe(200);
    return res.json().order.id as string;
  };

  it('sales leave updated_at alone; selling out shows in recently_closed, coming back in stock in recently_updated', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 3 });
    // Published and last edited ten days ago: nothing new for a daily sync.
    const old = new Date(Date.now() - 10 * DAY);
    await h.services.db.updateTable('offers').set({ published_at: old, updated_at: old }).where('id', '=', offerId).execute();
    expect((await sync()).has(offerId)).toBe(false);

    await order(offerId, 1, 'a');
    expect((await offerRow(offerId)).updated_at).toEqual(old);
    expect((await sync()).has(offerId)).toBe(false); // a sale is not a change

    const before = Date.now();
    const last = await order(offerId, 2, 'b');
    const soldOut = (await sync()).get(offerId);
    expect(soldOut?.closed_at).toBeTruthy(); // delete it from the copy
    expect(Date.parse(soldOut!.closed_at!)).toBeGreaterThanOrEqual(before - 1000);

    const cancelled = await call('PUT', `${DIST}/orders/${last}`, dist, { order: { status: 'cancelled' } });
    expect(cancelled.statusCode).toBe(200);
    const back = (await sync()).get(offerId);
    expect(back).toMatchObject({ closed_at: null, quantity_in_stock: 2 }); // upsert it again
    expect((await offerRow(offerId)).updated_at).toEqual(old);
  });

  it('an offer approved before its start_date is not published at approval; it is reported once that day has begun', async () => {
    const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
    const created = await call('POST', `${SUB}/offers`, sub.key, { offer: validOffer({ start_date: tomorrow }) });
    expect(created.statusCode).toBe(200);
    const offerId: string = created.json().offer.id;
    await h.services.temporal.workflow.getHandle(offerReviewWorkflowId(offerId)).signal(approveSignal, { reviewer: 'Ana' });
    await waitForOfferStatus(h, offerId, 'approved');
    expect(await offerRow(offerId)).toMatchObject({ status: 'approved', published_at: null });
    const events = await h.services.db
      .selectFrom('offer_events')
      .select(['type', 'data'])
      .where('offer_id', '=', offerId)
      .orderBy('sequence')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['offer.created', 'offer.status_changed']);
    expect(events[1].data).toMatchObject({ new_status: 'approved', publish_deferred: true });
    expect((await call('GET', `${DIST}/offers/${offerId}`)).statusCode).toBe(404);
    // The workflow waits for the day to begin (its timer; the callbacks test drives it to the end).
    const description = await h.services.temporal.workflow.getHandle(offerReviewWorkflowId(offerId)).describe();
    expect(description.status.name).toBe('RUNNING');

    // Once the day has begun, a sync reports it (start_date in the window) even before the timer's publication lands.
    await h.services.db
      .updateTable('offers')
      .set({ start_date: new Date().toISOString().slice(0, 10) })
      .where('id', '=', offerId)
      .execute();
    expect((await sync()).get(offerId)).toMatchObject({ closed_at: null });
  });
});
