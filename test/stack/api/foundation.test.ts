import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

describe('foundation: keys, formats and errors against the real stack', () => {
  let h: Harness;
  let subKey: string;
  let distKey: string;
  beforeAll(async () => {
    h = await createHarness();
    subKey = await h.key('submission');
    distKey = await h.key('distribution');
  });
  afterAll(() => h.close());

  const get = (url: string, key?: string, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'GET', url, headers: { ...(key ? { 'x-service-api-key': key } : {}), ...headers } });

  it('answers /health 200 with all three backends up', async () => {
    const res = await get('/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'OK', checks: { postgres: 'up', temporal: 'up', object_store: 'up' } });
  });

  it('lets a key into its own interface and refuses it on the other', async () => {
    expect((await get(`${SUB}/categories`, subKey)).statusCode).toBe(200);
    expect((await get(`${DIST}/categories`, distKey)).statusCode).toBe(200);
    const wrong = await get(`${DIST}/categories`, subKey);
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().errors[0].code).toBe('wrong_interface');
    expect((await get(`${SUB}/categories`, distKey)).statusCode).toBe(403);
  });

  it('refuses a key of the other environment', async () => {
    const prodKey = await h.key('submission', { environment: 'production' });
    const res = await get(`${SUB}/categories`, prodKey);
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0].code).toBe('wrong_environment');
  });

  it('answers 401 with the error body for a missing or unknown key', async () => {
    for (const key of [undefined, 'om_test_sub_nope']) {
      const res = await get(`${SUB}/categories`, key);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ status: 'ERROR', errors: [{ code: 'unauthorized' }] });
    }
  });

  it('serves the seeded category tree, the same in JSON and XML', async () => {
    const json = (await get(`${SUB}/categories`, subKey)).json();
    expect(json.status).toBe('OK');
    expect(json.total).toBeGreaterThan(10);
    const restaurants = json.categories.find((c: { name: string }) => c.name === 'Restaurants');
    expect(restaurants).toMatchObject({ parent: 1, parent_id: 1 });
    expect(json.categories.find((c: { id: number }) => c.id === 1).parent).toBeNull();

    for (const res of [await get(`${SUB}/categories`, subKey, { accept: 'application/xml' }), await get(`${SUB}/categories.xml`, subKey)]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/xml/);
      expect(res.body).toMatch(/^<\?xml[^>]*><response><status>OK<\/status><categories><category><id>1<\/id>/);
      expect((res.body.match(/<category>/g) ?? []).length).toBe(json.categories.length);
      expect(res.body).toContain(
        `<category><id>${restaurants.id}</id><name>Restaurants</name><parent>1</parent><parent_id>1</parent_id></category>`,
      );
    }
    const forcedJson = await get(`${SUB}/categories.json`, subKey, { accept: 'application/xml' });
    expect(forcedJson.json()).toEqual(json);
    // Accept is read with its q-values: XML refused (q=0) is never the answer.
    const refusedXml = await get(`${SUB}/categories`, subKey, { accept: 'application/xml;q=0, application/json' });
    expect(refusedXml.headers['content-type']).toMatch(/application\/json/);
    expect(refusedXml.json()).toEqual(json);
    const preferredXml = await get(`${SUB}/categories`, subKey, { accept: 'application/json;q=0.5, application/xml' });
    expect(preferredXml.headers['content-type']).toMatch(/application\/xml/);
  });

  it('pages lists with page, per_page and total', async () => {
    const res = (await get(`${DIST}/categories?page=2&per_page=5`, distKey)).json();
    expect(res).toMatchObject({ page: 2, per_page: 5 });
    expect(res.categories).toHaveLength(5);
    const invalid = await get(`${DIST}/categories?per_page=0`, distKey);
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().errors[0].field).toBe('per_page');
  });

  describe('bad input gets its 4xx with the error body, and the server stays up', () => {
    // The error path is the same for every route; POST /offers stands for them all.
    const post = (payload: string, contentType: string, accept = 'application/json') =>
      h.app.inject({
        method: 'POST',
        url: `${SUB}/offers`,
        payload,
        headers: { 'x-service-api-key': subKey, 'content-type': contentType, accept },
      });

    it.each([
      ['malformed JSON', '{"offer": {', 'application/json', 400, 'malformed_body'],
      ['malformed XML', '<offer><title>x</offer>', 'application/xml', 400, 'malformed_body'],
      [
        'a DOCTYPE entity bomb',
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><offer>&lol2;</offer>',
        'application/xml',
        400,
        'malformed_body',
      ],
      ['a wrong Content-Type', 'title=x', 'text/plain', 415, 'unsupported_media_type'],
      ['a form body', 'title=x', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
    ])('%s', async (_name, payload, contentType, status, code) => {
      const res = await post(payload, contentType);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toMatchObject({ status: 'ERROR', errors: [{ code }] });
      expect(res.body).not.toMatch(/at .*\.ts:\d+/); // no stack trace
      expect((await get('/health')).statusCode).toBe(200);
    });

    it('answers errors in XML when XML is asked for', async () => {
      const res = await post('<offer>', 'application/xml', 'application/xml');
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/<response><status>ERROR<\/status><errors><error><code>malformed_body<\/code>/);
    });

    it('refuses a body over the size limit with 413', async () => {
      const res = await post(JSON.stringify({ offer: { title: 'x'.repeat(h.config.BODY_MAX_BYTES) } }), 'application/json');
      expect(res.statusCode).toBe(413);
      expect(res.json().errors[0].code).toBe('payload_too_large');
    });

    it('answers unknown routes with 404 in the envelope', async () => {
      const res = await get(`${SUB}/nothing-here`, subKey);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 'ERROR', errors: [{ code: 'not_found' }] });
    });
  });
});
