import { approveSignal } from '../../../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../../../workflows/shared/ids';
import { validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

type Client = { key: string; clientId: string };
type FeedEvent = { id: string; type: string; offer_id: string | null; data: { offer?: Record<string, unknown> } };

/**
 * Issue 43 item 13 (decision 0074): a publisher's feed shows the events of the time the offer was
 * open to it. After an offer's exclusivity moves from publisher A to B, A keeps the stock events of
 * its period (the offer named by id only: its content is no longer A's to read) and B does not
 * get them; B sees the events from the move on.
 */
describe('feed visibility in time', () => {
  let h: Harness;
  let sub: Client;
  let a: Client;
  let b: Client;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    sub = await h.client('submission');
    a = await h.client('distribution');
    b = await h.client('distribution');
  });
  afterAll(() => h.close());

  const call = (key: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload: payload as object } : {}) });
  const approve = async (offerId: string) => {
    await h.services.temporal.workflow.getHandle(offerReviewWorkflowId(offerId)).signal(approveSignal, { reviewer: 'Ana' });
    await waitForOfferStatus(h, offerId, 'approved');
  };
  const move = async (offerId: string, status: string) =>
    expect((await call(sub.key, 'PUT', `${SUB}/offers/${offerId}`, { offer: { status } })).statusCode).toBe(200);
  const order = async (c: Client, offerId: string) =>
    expect(
      (
        await call(c.key, 'POST', `${DIST}/orders`, {
          order: {
            order_number: `t-${Math.random().toString(36).slice(2)}`,
            customer_name: 'Ada',
            items: [{ offer_id: offerId, quantity: 1 }],
          },
        })
      ).statusCode,
    ).toBe(200);
  /** Every event of this offer in the client's feed (one page is enough for a fresh offer among few). */
  const feed = async (c: Client, offerId: string): Promise<FeedEvent[]> => {
    const events: FeedEvent[] = [];
    let after = '';
    for (;;) {
      const page = (await call(c.key, 'GET', `${DIST}/events?limit=1000${after}`)).json();
      events.push(...(page.events as FeedEvent[]).filter((e) => e.offer_id === offerId));
      if (!page.has_more) return events;
      after = `&after=${page.next_cursor}`;
    }
  };
  const stockEventIds = async (offerId: string, from: number) =>
    (
      await h.services.db
        .selectFrom('offer_events')
        .select(['id', 'sequence'])
        .where('offer_id', '=', offerId)
        .where('type', '=', 'offer.stock_changed')
        .where('sequence', '>', from)
        .orderBy('sequence')
        .execute()
    ).map((r) => r.id);
  const lastSequence = async (offerId: string) =>
    Number(
      (
        await h.services.db
          .selectFrom('offer_events')
          .select((eb) => eb.fn.max('sequence').as('s'))
          .where('offer_id', '=', offerId)
          .executeTakeFirstOrThrow()
      ).s,
    );

  it('A keeps the events of its exclusive period, B does not get them, and B sees its own from the move on', async () => {
    const created = await call(sub.key, 'POST', `${SUB}/offers`, {
      offer: validOffer({ title: 'First A, then B', initial_quantity: 10, exclusivity: { exclusive: true, channels: [a.clientId] } }),
    });
    const offerId = created.json().offer.id as string;
    await approve(offerId);
    await order(a, offerId);
    const aPeriod = await stockEventIds(offerId, 0);
    expect(aPeriod.length).toBeGreaterThan(0);

    // The advertiser moves the exclusivity to B (withdraw, edit, review again).
    await move(offerId, 'withdrawn');
    const edit = await call(sub.key, 'PUT', `${SUB}/offers/${offerId}`, {
      offer: { exclusivity: { exclusive: true, channels: [b.clientId] } },
    });
    expect(edit.statusCode).toBe(200);
    const moved = await lastSequence(offerId);
    await move(offerId, 'pending');
    await approve(offerId);
    await order(b, offerId);
    const bPeriod = await stockEventIds(offerId, moved);
    expect(bPeriod.length).toBeGreaterThan(0);

    const aFeed = await feed(a, offerId);
    const bFeed = await feed(b, offerId);
    const ids = (events: FeedEvent[]) => events.map((e) => e.id);
    // A: its period's stock events, still; none of B's.
    expect(ids(aFeed)).toEqual(expect.arrayContaining(aPeriod));
    expect(ids(aFeed).some((id) => bPeriod.includes(id))).toBe(false);
    // What A learns of the offer now is its id only: the title, stock and the rest are B's to read.
    for (const e of aFeed.filter((e) => aPeriod.includes(e.id))) expect(e.data.offer).toEqual({ id: offerId });
    // B: its own period, nothing of A's.
    expect(ids(bFeed)).toEqual(expect.arrayContaining(bPeriod));
    expect(ids(bFeed).some((id) => aPeriod.includes(id))).toBe(false);
    expect(bFeed.find((e) => bPeriod.includes(e.id))?.data.offer).toMatchObject({ id: offerId, title: 'First A, then B' });
  });
});
