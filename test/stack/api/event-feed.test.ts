import { sql } from 'kysely';
import { revenueShares } from '../../../domain/money';
import { callbackBuilder } from '../../../schemas/callback-event';
import { cursorOwner, encodeCursor } from '../../../schemas/event-feed';
import { appendOfferEvent } from '../../../store/offer-events';
import { findOffersByIds } from '../../../store/offers';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

type FeedEvent = { id: string; type: string; offer_id: string; sequence: number; created_at: string; data: Record<string, unknown> };
type Page = { status: string; events: FeedEvent[]; next_cursor: string; has_more: boolean };

const PREFIX = { submission: SUB, distribution: DIST } as const;

describe('GET /events: the change feed on both interfaces', () => {
  let h: Harness;
  let a: { key: string; clientId: string };
  let b: { key: string; clientId: string };
  let dist: string;
  let approved: string[];
  let pending: string;
  let other: string;

  beforeAll(async () => {
    h = await createHarness();
    a = await h.client('submission');
    b = await h.client('submission');
    dist = await h.key('distribution');
    approved = [await seedOffer(h, a.clientId), await seedOffer(h, a.clientId), await seedOffer(h, a.clientId, {}, 'suspended')];
    pending = await seedOffer(h, a.clientId, {}, 'pending');
    other = await seedOffer(h, b.clientId);
  });
  afterAll(() => h.close());

  const get = (iface: keyof typeof PREFIX, key: string, query = '', headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'GET', url: `${PREFIX[iface]}/events${query}`, headers: { 'x-service-api-key': key, ...headers } });

  const page = async (iface: keyof typeof PREFIX, key: string, query = ''): Promise<Page> => {
    const res = await get(iface, key, query);
    expect(res.statusCode).toBe(200);
    return res.json() as Page;
  };

  /** Every event from the oldest kept, following next_cursor `limit` at a time. */
  const readAll = async (iface: keyof typeof PREFIX, key: string, limit: number) => {
    const events: FeedEvent[] = [];
    let p = await page(iface, key, `?limit=${limit}`);
    for (;;) {
      expect(p.events.length).toBeLessThanOrEqual(limit);
      events.push(...p.events);
      if (!p.has_more) return { events, cursor: p.next_cursor };
      p = await page(iface, key, `?limit=${limit}&after=${p.next_cursor}`);
    }
  };

  const eventsOf = (offerIds: string[]) =>
    h.services.db
      .selectFrom('offer_events')
      .selectAll()
      .where('offer_id', 'in', offerIds)
      .orderBy('offer_id')
      .orderBy('sequence')
      .execute();

  it("gives a submission client every event of its own offers once, each offer's in sequence order, page by page", async () => {
    const paged = await readAll('submission', a.key, 2);
    const whole = await readAll('submission', a.key, 1000);
    expect(paged.events.map((e) => e.id)).toEqual(whole.events.map((e) => e.id));
    expect(new Set(paged.events.map((e) => e.id)).size).toBe(paged.events.length);

    const stored = await eventsOf([...approved, pending]);
    expect(paged.events.map((e) => e.id).sort()).toEqual(stored.map((e) => e.id).sort());
    expect(paged.events.every((e) => [...approved, pending].includes(e.offer_id))).toBe(true);
    for (const id of [...approved, pending]) {
      const seqs = paged.events.filter((e) => e.offer_id === id).map((e) => e.sequence);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    }
    // Review outcomes are there, the offer as the advertiser's own view shows it.
    const outcome = paged.events.find((e) => e.offer_id === approved[0] && e.type === 'offer.status_changed')!;
    expect(outcome.data).toMatchObject({ new_status: 'approved', offer: { id: approved[0], status: expect.any(String) } });
  });

  it('shows a submission client nothing of another client', async () => {
    const { events } = await readAll('submission', b.key, 1000);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.offer_id === other)).toBe(true);
  });

  it('shows a distribution client only the changes of offers it may sell, in its vocabulary', async () => {
    const { events } = await readAll('distribution', dist, 1000);
    const ours = events.filter((e) => [...approved, pending, other].includes(e.offer_id));
    expect(ours.some((e) => e.offer_id === pending)).toBe(false);
    expect(events.some((e) => e.type === 'offer.created' || e.type === 'offer.status_changed')).toBe(false);
    expect(ours.filter((e) => e.offer_id === approved[0]).map((e) => e.type)).toEqual(['offer.published']);
    expect(ours.filter((e) => e.offer_id === approved[2]).map((e) => e.type)).toEqual(['offer.published', 'offer.suspended']);
    expect(JSON.stringify(ours)).not.toContain('"reason"');
  });

  it("carries the callbacks' events: the same ids, types and bodies as a callback to that client", async () => {
    const callbackFor = callbackBuilder(revenueShares(h.config));
    const [offer] = await findOffersByIds(h.services.db, [approved[2]]);
    const stored = await eventsOf([approved[2]]);
    for (const [iface, key, clientId] of [
      ['submission', a.key, a.clientId],
      ['distribution', dist, 'any-publisher'],
    ] as const) {
      const feed = (await readAll(iface, key, 1000)).events.filter((e) => e.offer_id === approved[2]);
      const callbacks = stored.flatMap((ev) => callbackFor(ev, offer, { interface: iface, client_id: clientId }) ?? []);
      expect(feed).toEqual(
        callbacks.map(({ payload }) => {
          const p = payload as Omit<FeedEvent, 'offer_id'>;
          return { id: p.id, type: p.type, offer_id: approved[2], sequence: p.sequence, created_at: p.created_at, data: p.data };
        }),
      );
    }
  });

  it('does not skip an event whose transaction commits after a later one was read', async () => {
    const { cursor } = await readAll('submission', a.key, 1000);
    let late = '';
    let seen: Page | undefined;
    await h.services.db.transaction().execute(async (trx) => {
      // Written first, committed last: a position taken when writing would lie below what the reader saw.
      late = await appendOfferEvent(trx, {
        key: `late:${approved[0]}`,
        offerId: approved[0],
        type: 'offer.updated',
        data: { changed_fields: ['title'] },
      });
      const early = await seedOffer(h, a.clientId, {}, 'pending'); // committed while `late` is still open
      seen = await page('submission', a.key, `?after=${cursor}`);
      expect(seen.events.map((e) => e.offer_id)).toEqual([early]);
      expect(seen.events.map((e) => e.id)).not.toContain(late);
    });
    const after = await page('submission', a.key, `?after=${seen!.next_cursor}`);
    expect(after.events.map((e) => e.id)).toEqual([late]);
    expect(after.has_more).toBe(false);
    // Up to date: the same cursor gives nothing, and nothing twice.
    expect((await page('submission', a.key, `?after=${after.next_cursor}`)).events).toEqual([]);
  });

  it('pages through events written by parallel transactions while it reads: every one once, each offer in order', async () => {
    const { cursor: start } = await readAll('submission', b.key, 1000);
    const offers = [await seedOffer(h, b.clientId), await seedOffer(h, b.clientId), await seedOffer(h, b.clientId)];
    const written: string[] = [];
    // Two writers per offer (they queue on its row lock), each transaction held open a moment so commits interleave.
    const writers = offers.flatMap((offerId, o) =>
      [0, 1].map(async (w) => {
        for (let i = 0; i < 8; i++)
          await h.services.db.transaction().execute(async (trx) => {
            const id = await appendOfferEvent(trx, {
              key: `parallel:${o}:${w}:${i}`,
              offerId,
              type: 'offer.updated',
              data: { changed_fields: ['title'] },
            });
            await sql`select pg_sleep(${(i % 3) * 0.005})`.execute(trx);
            written.push(id);
          });
      }),
    );
    let done = false;
    const all = Promise.all(writers).then(() => (done = true));
    const read: FeedEvent[] = [];
    let cursor = start;
    let readsWhileWriting = 0;
    for (let finalRead = false; !finalRead;) {
      finalRead = done; // one more read after the last commit
      if (!done) readsWhileWriting++;
      const p = await page('submission', b.key, `?limit=5&after=${cursor}`);
      read.push(...p.events);
      cursor = p.next_cursor;
      if (p.has_more) finalRead = false;
    }
    await all;
    expect(readsWhileWriting).toBeGreaterThan(1);
    const ours = read.filter((e) => e.type === 'offer.updated').map((e) => e.id);
    expect(ours).toHaveLength(written.length);
    expect(new Set(ours)).toEqual(new Set(written));
    for (const offerId of offers) {
      const seqs = read.filter((e) => e.offer_id === offerId).map((e) => e.sequence);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    }
  });

  it('starts at since, and an empty page still hands out a cursor that continues', async () => {
    const since = new Date().toISOString();
    const empty = await page('submission', b.key, `?since=${since}`);
    expect(empty).toMatchObject({ events: [], has_more: false });
    const newer = await seedOffer(h, b.clientId, {}, 'pending');
    const next = await page('submission', b.key, `?after=${empty.next_cursor}`);
    expect(next.events.map((e) => [e.offer_id, e.type])).toEqual([[newer, 'offer.created']]);
    expect((await page('submission', b.key, `?since=${since}`)).events.map((e) => e.id)).toEqual(next.events.map((e) => e.id));
  });

  it('bounds limit to 1–1000 and says when more follow', async () => {
    const one = await page('submission', a.key, '?limit=1');
    expect(one.events).toHaveLength(1);
    expect(one.has_more).toBe(true);
    expect((await page('submission', a.key, '?limit=1000')).events.length).toBeGreaterThan(1);
    for (const bad of ['0', '1001', 'ten', '2.5']) {
      const res = await get('submission', a.key, `?limit=${bad}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'limit' });
    }
  });

  it('refuses since with after, and a cursor it did not hand out, with 422', async () => {
    const { next_cursor } = await page('submission', a.key, '?limit=1');
    const both = await get('submission', a.key, `?since=2026-11-20T00:00:00Z&after=${next_cursor}`);
    expect(both.statusCode).toBe(422);
    expect(both.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'after', message: expect.stringContaining('not both') });
    const timed = (ms: string) => Buffer.from(`1.1.${ms}`).toString('base64url');
    const notCursors = [
      'nonsense',
      Buffer.from('2.5.6').toString('base64url'),
      encodeCursor({ position: 1e12, owner: cursorOwner(a.clientId) }),
      // Cursors carry no time any more (issue 34): one that did, set far ahead, is not a cursor.
      timed('999999999999999'),
      timed(String(Date.now())),
    ];
    for (const bad of notCursors) {
      const res = await get('submission', a.key, `?after=${bad}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'after' });
    }
    expect((await get('submission', a.key, '?since=yesterday')).statusCode).toBe(422);
    const future = await get('submission', a.key, `?since=${new Date(Date.now() + 3_600_000).toISOString()}`);
    expect(future.statusCode).toBe(422);
    expect(future.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'since' });
  });

  it("refuses another client's cursor with 422, on either interface (issue 34)", async () => {
    const { next_cursor: theirs } = await page('submission', b.key, '?limit=1');
    const res = await get('submission', a.key, `?after=${theirs}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({
      code: 'invalid_field',
      field: 'after',
      message: expect.stringContaining('another API client'),
    });
    const { next_cursor: publishers } = await page('distribution', dist, '?limit=1');
    expect((await get('distribution', (await h.client('distribution')).key, `?after=${publishers}`)).statusCode).toBe(422);
    expect((await get('distribution', dist, `?after=${publishers}`)).statusCode).toBe(200);
  });

  it('answers 410 gone for a cursor whose next event was placed more than 30 days ago, or a since as old', async () => {
    const old = new Date(Date.now() - 31 * 86_400_000);
    const first = await page('submission', a.key, '?limit=1');
    const position = (
      await h.services.db.selectFrom('offer_events').select('feed_position').where('id', '=', first.events[0].id).executeTakeFirstOrThrow()
    ).feed_position!;
    const placed = (where: 'at' | 'after') =>
      h.services.db
        .selectFrom('offer_events')
        .select(['feed_position', 'fed_at'])
        .where('feed_position', where === 'at' ? '=' : '>', position)
        .orderBy('feed_position')
        .limit(1)
        .executeTakeFirstOrThrow();
    const [own, next] = [await placed('at'), await placed('after')];
    const age = (row: { feed_position: string | null }, fedAt: Date | null) =>
      h.services.db
        .updateTable('offer_events')
        .set({ fed_at: fedAt } as never)
        .where('feed_position', '=', row.feed_position)
        .execute();
    // The age is read from the feed (the first event after the cursor), nothing the client sends:
    // the cursor's own event placed long ago does not matter while what follows it is recent.
    await age(own, old);
    try {
      expect((await get('submission', a.key, `?after=${first.next_cursor}`)).statusCode).toBe(200);
      await age(next, old);
      const stale = await get('submission', a.key, `?after=${first.next_cursor}`);
      expect(stale.statusCode).toBe(410);
      expect(stale.json().errors[0]).toMatchObject({ code: 'gone', field: 'after', message: expect.stringContaining('30 days') });
    } finally {
      await age(own, own.fed_at);
      await age(next, next.fed_at);
    }
    const since = await get('distribution', dist, `?since=${old.toISOString()}`);
    expect(since.statusCode).toBe(410);
    expect(since.json().errors[0]).toMatchObject({ code: 'gone', field: 'since' });
  });

  it('answers in XML too', async () => {
    const json = await page('submission', a.key, '?limit=2');
    const res = await get('submission', a.key, '?limit=2', { accept: 'application/xml' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    expect(res.body).toContain('<status>OK</status>');
    expect(res.body).toContain(`<events><event><id>${json.events[0].id}</id>`);
    expect(res.body).toContain(`<next_cursor>${json.next_cursor}</next_cursor><has_more>true</has_more>`);
    const suffixed = await h.app.inject({
      method: 'GET',
      url: `${PREFIX.submission}/events.xml?limit=2`,
      headers: { 'x-service-api-key': a.key },
    });
    expect(suffixed.statusCode).toBe(200);
    expect(suffixed.body).toBe(res.body);
  });
});
