import { changeOfferStatus } from '../../../store/offers';
import { seedOffer } from '../../setup/fixtures';
import { makePdf, makePng, multipart } from '../../setup/files';
import { harnessWithKeys, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * What publishers can read of an offer: its media's bytes (absolute URLs, type, size, caching),
 * and an offer they have sold or reserved after it has left the catalogue.
 */
describe('distribution offers: media and offers a publisher has sold', () => {
  let h: Harness;
  let sub: { key: string; clientId: string };
  let dist: string;
  beforeAll(async () => {
    ({ h, dist, sub } = await harnessWithKeys({ reservations: true }));
  });
  afterAll(() => h.close());

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    key: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    h.app.inject({
      method,
      url,
      headers: { 'x-service-api-key': key, ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  const upload = async (filename: string, content: Buffer) => {
    const body = multipart([{ filename, content }]);
    const res = await h.app.inject({
      method: 'POST',
      url: `${SUB}/attachments`,
      payload: body.payload,
      headers: { ...body.headers, 'x-service-api-key': sub.key },
    });
    expect(res.statusCode).toBe(200);
    return res.json().attachment.id as string;
  };
  const offerWith = (mediaIds: string[], overrides: Record<string, unknown> = {}) =>
    seedOffer(h, sub.clientId, { creative: { headlines: ['Pictured'], original_media: mediaIds.map((id) => ({ id })) }, ...overrides });

  it('gives each medium an absolute URL that serves its bytes, with type, pixel size and caching headers', async () => {
    const png = makePng(40, 30);
    const image = await upload('hero.png', png);
    const menu = await upload('menu.pdf', makePdf());
    const offerId = await offerWith([image, menu]);

    const res = await call('GET', `${DIST}/offers/${offerId}`, dist, undefined, { host: 'api.example.test' });
    expect(res.statusCode).toBe(200);
    const media = res.json().offer.creative.original_media;
    expect(media).toEqual([
      {
        id: image,
        url: `http://api.example.test${DIST}/offers/${offerId}/media/${image}`,
        content_type: 'image/png',
        width: 40,
        height: 30,
      },
      {
        id: menu,
        url: `http://api.example.test${DIST}/offers/${offerId}/media/${menu}`,
        content_type: 'application/pdf',
        width: null,
        height: null,
      },
    ]);
    // The search shows the same media.
    const found = (await call('GET', `${DIST}/offers?per_page=100&sort_by=published_at+desc`, dist)).json().offers;
    expect(found.find((o: { id: string }) => o.id === offerId)?.creative.original_media[0].url).toMatch(new RegExp(`/media/${image}$`));

    const bytes = await call('GET', new URL(media[0].url).pathname, dist);
    expect(bytes.statusCode).toBe(200);
    expect(bytes.headers['content-type']).toBe('image/png');
    expect(bytes.rawPayload.equals(png)).toBe(true);
    expect(bytes.headers['cache-control']).toBe('private, max-age=86400');
    const etag = bytes.headers.etag as string;
    expect(etag).toBe(`"${image}"`);
    const again = await call('GET', new URL(media[0].url).pathname, dist, undefined, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    // Any distribution client sees an offer on sale, so any can fetch its pictures.
    expect((await call('GET', new URL(media[0].url).pathname, await h.key('distribution'))).statusCode).toBe(200);
  });

  it('serves no medium of an offer the client cannot read, nor an id that is not one of its media', async () => {
    const image = await upload('a.png', makePng());
    const stray = await upload('b.png', makePng());
    const onSale = await offerWith([image]);
    const suspended = await offerWith([image]);
    await changeOfferStatus(h.services.db, { key: `t:${suspended}:s`, offerId: suspended, to: 'suspended', actor: 'advertiser' });
    expect((await call('GET', `${DIST}/offers/${suspended}/media/${image}`, dist)).statusCode).toBe(404);
    expect((await call('GET', `${DIST}/offers/${onSale}/media/${stray}`, dist)).statusCode).toBe(404);
  });

  it('keeps an offer on sale whole: deleting a medium it shows is refused, naming the offer, until the offer ends', async () => {
    const kept = await upload('c.png', makePng());
    const offerId = await offerWith([kept]);
    const refused = await call('DELETE', `${SUB}/attachments/${kept}`, sub.key);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().errors).toEqual([
      { code: 'attachment_in_use', message: expect.stringContaining(offerId), attachment_id: kept, offer_ids: [offerId] },
    ]);
    const [medium] = (await call('GET', `${DIST}/offers/${offerId}`, dist)).json().offer.creative.original_media;
    expect(medium).toMatchObject({ id: kept, url: expect.any(String) });
    expect((await call('GET', new URL(medium.url).pathname, dist)).statusCode).toBe(200);
    // Cancelled, the offer is sold no more: the attachment may go, and the offer keeps its id only.
    // (A seeded offer has no review workflow: its move is written as the workflow's step would.)
    await changeOfferStatus(h.services.db, { key: `t:${offerId}:c`, offerId, to: 'cancelled', actor: 'advertiser' });
    expect((await call('DELETE', `${SUB}/attachments/${kept}`, sub.key)).statusCode).toBe(200);
    expect((await call('GET', `${SUB}/offers/${offerId}`, sub.key)).json().offer.creative.original_media).toEqual([{ id: kept }]);
  });

  it('shows an offer that left the catalogue to a publisher holding its vouchers or a reservation, with its status and closed_at', async () => {
    const image = await upload('d.png', makePng());
    const sold = await offerWith([image], { initial_quantity: 2 });
    const order = await call('POST', `${DIST}/orders`, dist, {
      order: { order_number: `media-${sold}`, customer_name: 'Ada', items: [{ offer_id: sold, quantity: 2 }] },
    });
    expect(order.statusCode).toBe(200);

    const reserved = await offerWith([], { initial_quantity: 10 });
    const account = (
      await call('POST', `${DIST}/accounts`, dist, { account: { name: 'Blog', website_url: 'https://blog.example' } })
    ).json().account.id;
    expect((await call('PUT', `${DIST}/accounts/${account}`, dist, { account: { status: 'active' } })).statusCode).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const reservation = await call('POST', `${DIST}/offers/${reserved}/reservations`, dist, {
      reservation: { account_id: account, quantity_reserved: 3, start_date: today, end_date: '2099-01-01' },
    });
    expect(reservation.statusCode).toBe(200);
    await changeOfferStatus(h.services.db, { key: `t:${reserved}:s`, offerId: reserved, to: 'suspended', actor: 'advertiser' });

    const soldOut = await call('GET', `${DIST}/offers/${sold}`, dist);
    expect(soldOut.statusCode).toBe(200);
    expect(soldOut.json().offer).toMatchObject({ id: sold, status: 'approved', quantity_in_stock: 0, fine_print: expect.any(String) });
    expect(Date.parse(soldOut.json().offer.closed_at)).not.toBeNaN();
    // Its picture stays readable too (customer service shows what was bought).
    expect((await call('GET', `${DIST}/offers/${sold}/media/${image}`, dist)).statusCode).toBe(200);

    const suspended = await call('GET', `${DIST}/offers/${reserved}`, dist);
    expect(suspended.statusCode).toBe(200);
    expect(suspended.json().offer).toMatchObject({ id: reserved, status: 'suspended' });
    expect(Date.parse(suspended.json().offer.closed_at)).not.toBeNaN();

    // Another publisher, and the search, still see neither.
    const stranger = await h.key('distribution');
    for (const id of [sold, reserved]) expect((await call('GET', `${DIST}/offers/${id}`, stranger)).statusCode).toBe(404);
    expect((await call('GET', `${DIST}/offers/${sold}/media/${image}`, stranger)).statusCode).toBe(404);
    const listed = (await call('GET', `${DIST}/offers?per_page=100&sort_by=published_at+desc`, dist))
      .json()
      .offers.map((o: { id: string }) => o.id);
    expect(listed).not.toContain(sold);
    expect(listed).not.toContain(reserved);
  });
});
