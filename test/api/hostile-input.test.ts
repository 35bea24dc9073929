import fc from 'fast-check';
import { createHarness, type Harness } from '../setup/harness';
import { validOffer } from '../setup/fixtures';
import { multipart } from '../setup/files';

/** Every status the API documents (docs/errors.md); anything else, above all a 5xx, is a bug. */
const DOCUMENTED = new Set([200, 400, 401, 403, 404, 409, 413, 414, 415, 422, 429]);

const NASTY = [
  "' OR 1=1 --",
  '1; DROP TABLE offers',
  'price asc; DELETE FROM offers',
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '\u0000',
  '%00',
  '😀🎉',
  '\u202egnp.exe',
  'a\u200bb',
  'Ω≈ç√∫',
  '<script>alert(1)</script>',
  '-1',
  '0',
  '9999999999999999999999',
  '1e309',
  'NaN',
  'null',
  '[]',
  '{}',
  'x'.repeat(5000),
];
const nastyString = fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));
const FIELDS = [
  'title',
  'type',
  'price',
  'status',
  'start_date',
  'end_date',
  'quantity',
  'items',
  'order_number',
  'customer_name',
  'name',
  'content',
  'author_name',
  'account_id',
  'quantity_reserved',
  'offer_id',
  'website_url',
  'advertiser',
  'creative',
];
const PARAMS = [
  'page',
  'per_page',
  'status',
  'type',
  'types',
  'sort_by',
  'postal_code',
  'radius',
  'lat',
  'lng',
  'latitude',
  'longitude',
  'city',
  'state_code',
  'country_code',
  'categories',
  'category_ids',
  'recently_changed',
  'recently_updated',
  'recently_published',
  'recently_closed',
  'order_number',
];
const ROOTS = ['offer', 'order', 'account', 'comment', 'reservation', 'voucher', 'attachment'];

const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc
    .record({
      root: fc.constantFrom(...ROOTS),
      fields: fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(fc.jsonValue({ maxDepth: 3 }), nastyString), { maxKeys: 6 }),
    })
    .map(({ root, fields }) => ({ [root]: fields })),
);
const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const xmlBody = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.record({ root: fc.constantFrom(...ROOTS), fields: fc.dictionary(fc.constantFrom(...FIELDS), nastyString, { maxKeys: 6 }) }).map(
    ({ root, fields }) =>
      `<${root}>${Object.entries(fields)
        .map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
        .join('')}</${root}>`,
  ),
);

describe('hostile input: every answer is a documented 4xx or a 2xx, and the server stays healthy', () => {
  let h: Harness;
  const keys: Record<string, string> = {};
  let ownOfferId = '';
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    keys.submission = await h.key('submission');
    keys.distribution = await h.key('distribution', { reservations: true });
    const created = await h.app.inject({
      method: 'POST',
      url: '/submission/beta/offers',
      headers: { 'x-service-api-key': keys.submission },
      payload: { offer: validOffer() },
    });
    ownOfferId = created.json().offer.id;
  });
  afterAll(() => h.close());

  const routes = () =>
    h.app.registeredRoutes.filter(
      (r) => /^\/(submission|distribution)\/beta\//.test(r.url) && r.method !== 'HEAD' && !r.url.endsWith('/openapi'),
    );
  const fill = (url: string, value: string) =>
    url.replace(/:(\w+)/g, (_m, name) => (name === 'id' || name === 'offer_id' ? value || ownOfferId : value));
  const keyFor = (url: string) => keys[url.split('/')[1]];
  const check = (res: { statusCode: number; body: string }, what: string) => {
    if (!DOCUMENTED.has(res.statusCode)) throw new Error(`${what.slice(0, 300)} → ${res.statusCode}: ${res.body.slice(0, 300)}`);
    if (res.statusCode >= 400)
      expect(JSON.parse(res.body)).toMatchObject({
        status: 'ERROR',
        errors: expect.arrayContaining([expect.objectContaining({ code: expect.any(String) })]),
      });
    expect(res.body).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
  };

  it('fuzzes path ids and query strings of every route', async () => {
    expect(routes().length).toBeGreaterThan(10);
    for (const route of routes()) {
      await fc.assert(
        fc.asyncProperty(
          nastyString,
          fc.dictionary(fc.oneof(fc.constantFrom(...PARAMS), fc.string({ maxLength: 10 })), nastyString, { maxKeys: 4 }),
          async (id, query) => {
            const url = `${fill(route.url, encodeURIComponent(id))}?${new URLSearchParams(query).toString()}`;
            const res = await h.app.inject({ method: route.method as 'GET', url, headers: { 'x-service-api-key': keyFor(route.url) } });
            check(res, `${route.method} ${url}`);
          },
        ),
        { numRuns: 12 },
      );
    }
  });

  it('fuzzes JSON and XML bodies of every route that takes one', async () => {
    for (const route of routes().filter((r) => r.method === 'POST' || r.method === 'PUT')) {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            jsonBody.map((b) => ({ type: 'application/json', payload: JSON.stringify(b) })),
            xmlBody.map((b) => ({ type: 'application/xml', payload: b })),
          ),
          async (body) => {
            const res = await h.app.inject({
              method: route.method as 'POST',
              url: fill(route.url, ''),
              headers: { 'x-service-api-key': keyFor(route.url), 'content-type': body.type },
              payload: body.payload,
            });
            check(res, `${route.method} ${route.url} ${body.type} ${body.payload.slice(0, 200)}`);
          },
        ),
        { numRuns: 15 },
      );
    }
  });

  it('fuzzes headers: Accept, Content-Type and the key itself', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 60 }),
        fc.oneof(nastyString, fc.constant(keys.submission)),
        async (accept, contentType, key) => {
          const res = await h.app.inject({
            method: 'POST',
            url: '/submission/beta/offers',
            headers: { accept, 'content-type': contentType, 'x-service-api-key': key },
            payload: '{"offer":{}}',
          });
          check(res, `accept=${accept} content-type=${contentType}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  describe('known-bad inputs', () => {
    const post = (url: string, payload: string | Buffer, type: string, key = keys.submission) =>
      h.app.inject({ method: 'POST', url, headers: { 'x-service-api-key': key, 'content-type': type }, payload });

    it.each([
      [
        'billion laughs',
        `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "${'&lol;'.repeat(10)}"><!ENTITY lol2 "${'&lol1;'.repeat(10)}">]><offer><title>&lol2;</title></offer>`,
        400,
      ],
      [
        'an external entity',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><offer><title>&xxe;</title></offer>',
        400,
      ],
      ['a parameter entity', '<!DOCTYPE x [<!ENTITY % p SYSTEM "http://127.0.0.1/x.dtd"> %p;]><offer/>', 400],
      ['deep XML', `${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}`, 400],
    ])('XML: %s', async (_name, xml, status) => {
      const res = await post('/submission/beta/offers', xml, 'application/xml');
      expect(res.statusCode).toBe(status);
      expect(res.json().status).toBe('ERROR');
    });

    it('deeply nested JSON is refused with 400', async () => {
      const res = await post('/submission/beta/offers', `{"offer":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 'application/json');
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].message).toMatch(/nested deeper/);
    });

    it('a huge body is 413', async () => {
      const res = await post(
        '/submission/beta/offers',
        JSON.stringify({ offer: { title: 'x'.repeat(2 * 1024 * 1024) } }),
        'application/json',
      );
      expect(res.statusCode).toBe(413);
    });

    it('SQL fragments in sort_by and ids are plain 422/404', async () => {
      for (const sort of ['price asc; DROP TABLE offers', '(select 1)', 'price+asc,id', "title' --"]) {
        const res = await h.app.inject({
          method: 'GET',
          url: `/distribution/beta/offers?sort_by=${encodeURIComponent(sort)}`,
          headers: { 'x-service-api-key': keys.distribution },
        });
        expect(res.statusCode).toBe(422);
        expect(res.json().errors[0].field).toBe('sort_by');
      }
      const res = await h.app.inject({
        method: 'GET',
        url: `/submission/beta/offers/${encodeURIComponent("x' OR '1'='1")}`,
        headers: { 'x-service-api-key': keys.submission },
      });
      expect(res.statusCode).toBe(404);
    });

    it('negative and overflowing integers are 422, naming the field', async () => {
      for (const [overrides, field] of [
        [{ price: { currency_code: 'USD', amount: 1e20 } }, 'price.amount'],
        [{ initial_quantity: -1 }, 'initial_quantity'],
        [{ initial_quantity: 2 ** 53 }, 'initial_quantity'],
      ] as const) {
        const res = await post('/submission/beta/offers', JSON.stringify({ offer: validOffer(overrides) }), 'application/json');
        expect(res.statusCode).toBe(422);
        expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
      }
      for (const q of ['page=-1', 'per_page=99999999999999999999', 'page=1.5']) {
        const res = await h.app.inject({
          method: 'GET',
          url: `/submission/beta/offers?${q}`,
          headers: { 'x-service-api-key': keys.submission },
        });
        expect(res.statusCode).toBe(422);
      }
    });

    it('NUL characters are refused with 422 naming the field, in bodies and queries', async () => {
      const res = await post('/submission/beta/offers', JSON.stringify({ offer: validOffer({ title: 'a\u0000b' }) }), 'application/json');
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0].field).toBe('title');
      const q = await h.app.inject({
        method: 'GET',
        url: '/distribution/beta/offers?city=a%00b',
        headers: { 'x-service-api-key': keys.distribution },
      });
      expect(q.statusCode).toBe(422);
    });

    it('unicode edge cases in names round-trip exactly', async () => {
      const title = 'Café ☕ 50% off — 𝓕𝓪𝓷𝓬𝔂 \u202eRTL\u202c zero\u200bwidth 𠜎';
      const res = await post('/submission/beta/offers', JSON.stringify({ offer: validOffer({ title }) }), 'application/json');
      expect(res.statusCode).toBe(200);
      expect(res.json().offer.title).toBe(title);
      const xml = await h.app.inject({
        method: 'GET',
        url: `/submission/beta/offers/${res.json().offer.id}.xml`,
        headers: { 'x-service-api-key': keys.submission },
      });
      expect(xml.body).toContain(`<title>${title}</title>`);
    });

    it('uploads: a script named .png is 415; a traversal file name is stored safely; a ZIP bomb is stored, never unpacked', async () => {
      const upload = async (filename: string, content: Buffer) => {
        const body = multipart([{ filename, content, contentType: 'image/png' }]);
        return h.app.inject({
          method: 'POST',
          url: '/submission/beta/attachments',
          headers: { 'x-service-api-key': keys.submission, ...body.headers },
          payload: body.payload,
        });
      };
      expect((await upload('evil.png', Buffer.from('#!/bin/sh\nrm -rf /\n'))).statusCode).toBe(415);
      expect((await upload('x.png', Buffer.from('<?php system($_GET["c"]); ?>'))).statusCode).toBe(415);
      const traversal = await upload('../../../etc/passwd.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]));
      expect(traversal.statusCode).toBe(200);
      expect(traversal.json().attachment.file_name).not.toContain('/');
      // A ZIP whose header claims a 4 GiB member: we only ever sniff the magic number.
      const bomb = Buffer.concat([
        Buffer.from([0x50, 0x4b, 0x03, 0x04]),
        Buffer.from([20, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        Buffer.alloc(64),
      ]);
      expect([200, 415]).toContain((await upload('bomb.png', bomb)).statusCode);
    });
  });

  it('is still healthy afterwards', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });
});
