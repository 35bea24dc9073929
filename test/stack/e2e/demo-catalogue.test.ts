import { admin } from '../../setup/admin';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("the sandbox's demonstration catalogue (admin demo seed, spec 5.4)", () => {
  let h: Harness;
  // The CLI's review decisions are carried out by this file's worker, on this file's task queue.
  const env = () => ({ ...process.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE });
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(() => h.close());

  const demoOffers = () =>
    h.services.db.selectFrom('offers').select(['id', 'status', 'type']).where('client_id', '=', 'cli_demo_advertisers').execute();

  it("loads about 50 approved offers of all three types that the demo key's first search finds, with images served as PNG; a second seed adds nothing", async () => {
    const seeded = await admin(['demo', 'seed'], env());
    expect([seeded.code, seeded.stderr]).toEqual([0, '']);
    expect(JSON.parse(seeded.stdout)).toMatchObject({ offers: 50 });
    const offers = await demoOffers();
    expect(offers).toHaveLength(50);
    expect(offers.every((o) => o.status === 'approved')).toBe(true);
    expect(new Set(offers.map((o) => o.type))).toEqual(new Set(['deal', 'coupon', 'gift_card']));

    const key = (await admin(['keys', 'demo'])).stdout.trim();
    const get = (url: string) => h.app.inject({ method: 'GET', url, headers: { 'x-service-api-key': key } });
    const ids = new Set(offers.map((o) => o.id));
    // A newcomer's first search, near one of the catalogue's cities.
    const search = await get(`${DIST}/offers?per_page=100&postal_code=98101&radius=25`);
    expect(search.statusCode).toBe(200);
    const found = search.json().offers.filter((o: { id: string }) => ids.has(o.id));
    expect(found.length).toBeGreaterThanOrEqual(10);
    const media = found[0].creative.original_media[0];
    expect(media).toMatchObject({ content_type: 'image/png', width: 480, height: 300, url: expect.stringMatching(/^https?:\/\//) });
    const image = await get(new URL(media.url).pathname);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.subarray(0, 8)).toEqual(PNG_SIGNATURE);

    // The README's walk-through: a distribution key of one's own orders a demo deal, and the
    // customer opens the voucher page without any key.
    const mine = await h.key('distribution');
    const deal = found.find((o: { type: string }) => o.type === 'deal');
    const order = await h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': mine },
      payload: { order: { order_number: 'try-0001', customer_name: 'Ada Lovelace', items: [{ offer_id: deal.id, quantity: 1 }] } },
    });
    expect(order.statusCode).toBe(200);
    const page = await h.app.inject({ method: 'GET', url: new URL(order.json().order.vouchers[0].print_url).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain(deal.title);

    const again = await admin(['demo', 'seed'], env());
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, approved: 0, already_present: 50 });
    expect(await demoOffers()).toHaveLength(50);
    const attachments = await h.services.db
      .selectFrom('attachments')
      .select('id')
      .where('client_id', '=', 'cli_demo_advertisers')
      .execute();
    expect(attachments).toHaveLength(50);
  }, 180_000);

  it('does not run in production', async () => {
    const res = await admin(['demo', 'seed'], { ...env(), SERVICE_ENVIRONMENT: 'production' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/only in the sandbox/);
    expect(res.stdout).toBe('');
  });
});
