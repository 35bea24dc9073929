import { validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * How the API reads what a hostile client sends before any route runs: JSON keys that reach a
 * prototype, XML with two roots, query parameters repeated or written as hex or exponents, text
 * Postgres cannot store. Each is a documented 4xx (docs/errors.md) saying what is wrong.
 */
describe('hostile parsing: bodies and query strings are read one way, refused clearly', () => {
  let h: Harness;
  let sub: string;
  let dist: string;
  beforeAll(async () => {
    h = await createHarness();
    sub = await h.key('submission');
    dist = await h.key('distribution');
  });
  afterAll(() => h.close());

  const post = (payload: string, type = 'application/json') =>
    h.app.inject({ method: 'POST', url: `${SUB}/offers`, headers: { 'x-service-api-key': sub, 'content-type': type }, payload });
  const get = (url: string, key = sub) => h.app.inject({ method: 'GET', url, headers: { 'x-service-api-key': key } });
  const offerJson = JSON.stringify({ offer: validOffer() });

  it.each([
    ['__proto__ at the top', `{"__proto__": {"admin": true}, ${offerJson.slice(1)}`, '__proto__'],
    ['__proto__ inside the resource', offerJson.replace('"title":', '"__proto__": {"x": 1}, "title":'), '__proto__'],
    ['constructor.prototype', offerJson.replace('"title":', '"constructor": {"prototype": {"x": 1}}, "title":'), 'constructor.prototype'],
  ])('a JSON key that reaches a prototype (%s) is a 400 naming the key', async (_case, payload, key) => {
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ code: 'malformed_body', message: `JSON key ${key} is not allowed` }]);
  });

  it('JSON that does not parse is still a 400 saying so', async () => {
    const res = await post('{"offer": {');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'malformed_body', message: expect.stringMatching(/^malformed JSON: /) });
    expect((await post('')).json().errors[0].code).toBe('malformed_body');
  });

  it.each([
    ['application/json', ''],
    ['application/json', undefined],
    ['application/xml', ''],
    ['text/plain', ''],
    ['application/octet-stream', undefined],
  ])('an empty body labelled %s (payload %p) is fine on a route that reads none', async (type, payload) => {
    const headers = { 'x-service-api-key': sub, 'content-type': type };
    // The route runs (404: no such attachment), where the label used to be a 400 or 415.
    const deleted = await h.app.inject({ method: 'DELETE', url: '/submission/beta/attachments/att_none', headers, payload });
    expect(deleted.statusCode).toBe(404);
    expect(deleted.json().errors[0].code).toBe('not_found');
    const rollback = await h.app.inject({
      method: 'POST',
      url: '/submission/beta/offers/ofr_none/vouchers/vch_none/redemptions/rdm_none/rollback',
      headers,
      payload,
    });
    expect(rollback.statusCode).toBe(404);
  });

  it('routes that read a body still refuse an empty one, the upload included', async () => {
    for (const [url, type, status] of [
      ['/submission/beta/offers', 'application/json', 400],
      ['/submission/beta/offers', 'application/xml', 400],
      ['/submission/beta/attachments', 'application/json', 400],
      ['/submission/beta/offers', 'text/plain', 415],
    ] as const) {
      const res = await h.app.inject({ method: 'POST', url, headers: { 'x-service-api-key': sub, 'content-type': type }, payload: '' });
      expect([url, type, res.statusCode]).toEqual([url, type, status]);
    }
    // A body on a route that reads none is still parsed, so a malformed one is still refused.
    const res = await h.app.inject({
      method: 'DELETE',
      url: '/submission/beta/attachments/att_none',
      headers: { 'x-service-api-key': sub, 'content-type': 'application/json' },
      payload: '{"oops',
    });
    expect(res.statusCode).toBe(400);
  });

  it.each([
    ['two roots of one name', '<offer><title>a</title></offer><offer><title>b</title></offer>', /second root element/],
    ['two roots of different names', '<offer><title>a</title></offer><order><status>x</status></order>', /second root element/],
    ['an unclosed element', '<offer><title>a</title>', /^malformed XML: line 1: element <offer> is never closed$/],
    ['unclosed elements', '<offer>\n  <title>a', /^malformed XML: elements <offer> and <title> are never closed$/],
  ])('malformed XML (%s) is a 400 in plain words, without parser internals', async (_case, xml, message) => {
    const res = await post(xml, 'application/xml');
    expect(res.statusCode).toBe(400);
    const [error] = res.json().errors;
    expect(error.code).toBe('malformed_body');
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/at .*\.js|node_modules|Error:|Invalid '|\[/);
  });

  it('an element repeated where the offer holds one value is a 422 naming it', async () => {
    const res = await post('<offer><title>a</title><title>b</title></offer>', 'application/xml');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      { code: 'invalid_field', field: 'title', message: 'title: element <title> appears 2 times; it may appear once' },
    ]);
  });

  it('a repeated integer query parameter is a 422 saying it must be given once', async () => {
    for (const url of [`${SUB}/offers?per_page=5&per_page=6`, `${SUB}/offers?page=1&page=1`]) {
      const res = await get(url);
      expect(res.statusCode).toBe(422);
      const field = url.includes('per_page') ? 'per_page' : 'page';
      expect(res.json().errors).toEqual([{ code: 'invalid_field', field, message: `${field}: must be given once` }]);
    }
    const radius = await get(`${DIST}/offers?postal_code=10001&radius=5&radius=6`, dist);
    expect(radius.statusCode).toBe(422);
    expect(radius.json().errors[0]).toMatchObject({ field: 'radius', message: 'radius: must be given once' });
    for (const [query, field] of [
      ['city=Austin&city=Boston', 'city'],
      ['sort_by=price&sort_by=title', 'sort_by'],
      ['country_code=US&country_code=CA', 'country_code'],
    ]) {
      const res = await get(`${DIST}/offers?${query}`, dist);
      expect([query, res.statusCode, res.json().errors[0]]).toEqual([
        query,
        422,
        { code: 'invalid_field', field, message: `${field}: must be given once` },
      ]);
    }
    // Lists may still be repeated, as docs/distribution-search.md promises.
    expect((await get(`${DIST}/offers?types=deal&types=coupon`, dist)).statusCode).toBe(200);
  });

  it.each(['0x10', '1e2', '1E1', ' 5', '5.0', '+5', '', '0b1', 'Infinity', '١٢'])(
    'per_page=%j is refused: integer parameters take plain decimal digits only',
    async (value) => {
      const res = await get(`${SUB}/offers?per_page=${encodeURIComponent(value)}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'per_page' });
    },
  );

  it.each(['0x10', '1e2', '+5', '', 'Infinity', 'NaN', '5,5', '١٢'])(
    'radius=%j is refused: decimal parameters take plain decimal digits only, said in words',
    async (value) => {
      const res = await get(`${DIST}/offers?lat=40.7&lng=-73.9&radius=${encodeURIComponent(value)}`, dist);
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([
        { code: 'invalid_field', field: 'radius', message: 'radius: must be a number in decimal digits, such as 2.5' },
      ]);
    },
  );

  it('decimal parameters read plain decimals, a fraction or a sign included, as numbers within their bounds', async () => {
    for (const query of ['lat=40.7&lng=-73.9&radius=2.5', 'lat=-.5&lng=0.&radius=.5', 'latitude=%2040.7%20&longitude=-73.9&radius=500']) {
      expect([query, (await get(`${DIST}/offers?${query}`, dist)).statusCode]).toEqual([query, 200]);
    }
    for (const [query, field] of [
      ['lat=90.5&lng=0', 'lat'],
      ['lat=0&lng=-180.01', 'lng'],
      ['lat=0&lng=0&radius=0', 'radius'],
      ['lat=0&lng=0&radius=500.5', 'radius'],
    ]) {
      const res = await get(`${DIST}/offers?${query}`, dist);
      expect([query, res.statusCode, res.json().errors?.[0]?.field]).toEqual([query, 422, field]);
    }
  });

  it('every integer query parameter shares that rule; plain digits are read as numbers', async () => {
    expect((await get(`${SUB}/offers?per_page=016`)).json()).toMatchObject({ per_page: 16 });
    for (const [url, field, key] of [
      [`${SUB}/offers?page=0x2`, 'page', sub],
      [`${SUB}/categories?per_page=1e2`, 'per_page', sub],
      [`${DIST}/vouchers?recently_changed=0x10`, 'recently_changed', dist],
      [`${DIST}/offers?recently_published=1e1`, 'recently_published', dist],
      [`${DIST}/offers?lat=4e1&lng=-73`, 'lat', dist],
      [`${DIST}/offers?postal_code=10001&radius=0x10`, 'radius', dist],
    ]) {
      const res = await get(url, key);
      expect([url, res.statusCode, res.json().errors?.[0]?.field]).toEqual([url, 422, field]);
    }
    expect((await get(`${DIST}/offers?lat=40.75&lng=-73.98&radius=2.5`, dist)).statusCode).toBe(200);
  });

  it('a lone UTF-16 surrogate (valid JSON, but no text Postgres stores) is a 422 naming the field', async () => {
    const res = await post(offerJson.replace('"title":"Two-course dinner for two"', '"title":"Dinner \\ud800 for two"'));
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'title' });
    const q = await get(`${SUB}/offers?status=%ED%A0%80`);
    expect(q.statusCode).toBeLessThan(500);
  });

  it('a body of thousands of unknown fields, in JSON or XML, is a short 422: the first ten named, the rest counted', async () => {
    const offer = validOffer();
    const names = Array.from({ length: 5000 }, (_, i) => `u${i}`);
    const json = await post(JSON.stringify({ offer: { ...offer, ...Object.fromEntries(names.map((n) => [n, 0])) } }));
    const xml = await post(`<offer><title>x</title>${names.map((n) => `<${n}>0</${n}>`).join('')}</offer>`, 'application/xml');
    for (const res of [json, xml]) {
      expect(res.statusCode).toBe(422);
      expect(res.body.length).toBeLessThan(4096 + 400);
      const errors = res.json().errors as { code: string; field?: string; message: string }[];
      expect(errors).toHaveLength(11);
      expect(errors[0]).toMatchObject({ code: 'unknown_field', field: 'u0' });
      expect(errors[10]).toEqual({ code: 'unknown_field', message: 'and 4990 more error(s) like these, not listed' });
    }
  });

  it('a field name of 100,000 characters is clipped in the answer', async () => {
    const res = await post(JSON.stringify({ offer: { ...validOffer(), ['k'.repeat(100_000)]: 1 } }));
    expect(res.statusCode).toBe(422);
    expect(res.body.length).toBeLessThan(1000);
    expect(res.json().errors[0].field).toBe(`${'k'.repeat(200)}…`);
  });
});
