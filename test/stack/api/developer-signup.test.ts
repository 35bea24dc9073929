import { ConfigError, loadConfig } from '../../../platform/config';
import { revokeApiKey } from '../../../services/api-clients';
import { DEMO_CLIENT_ID, demoKey } from '../../../services/demo';
import { signupOf } from '../../../services/developer-signups';
import { validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DEV, DIST, SUB } from '../../setup/paths';

const API = `${DEV}/signups`;
const PAGE = '/developer/signup';
// light-my-request's default Host; the page's own origin as a browser sends it with a form post.
const ORIGIN = 'http://localhost:80';

/** A fresh client address per call, so tests do not share the per-address sign-up budget. */
let lastOctet = 0;
const freshAddress = () => `198.51.100.${++lastOctet}`;
let uniq = 0;
const email = (tag: string) => `${tag}-${Date.now()}-${++uniq}@example.com`;

const signUp = (h: Harness, body: unknown, remoteAddress = freshAddress(), headers: Record<string, string> = {}) =>
  h.app.inject({ method: 'POST', url: API, remoteAddress, headers, payload: body as object });

const postForm = (h: Harness, fields: Record<string, string>, remoteAddress = freshAddress(), headers: Record<string, string> = {}) =>
  h.app.inject({
    method: 'POST',
    url: PAGE,
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, ...headers },
    payload: new URLSearchParams(fields).toString(),
  });

/** The text of the element marked data-testid=`id` in a page. */
const testId = (html: string, id: string) => new RegExp(`data-testid="${id}"\\s*>([^<]*)<`).exec(html)?.[1];

describe('developer sign-up (sandbox)', () => {
  let h: Harness;
  beforeAll(async () => {
    // A generous per-second limit, so that what is measured below is the hourly sign-up budget.
    h = await createHarness({ worker: true, env: { RATE_LIMIT_PER_SECOND: '50' } });
  });
  afterAll(() => h.close());

  it('answers a sandbox key pair, shown once, whose keys work on their interfaces', async () => {
    const address = freshAddress();
    const given = email('Ada');
    const res = await signUp(h, { signup: { email: `  ${given.toUpperCase()} `, name: 'Deals Blog' } }, address);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { signup } = res.json();
    expect(signup).toMatchObject({
      email: given.toLowerCase(),
      name: 'Deals Blog',
      environment: 'sandbox',
      id: expect.stringMatching(/^dev_/),
    });
    const { submission, distribution } = signup.keys;
    expect(submission.key).toMatch(/^om_test_sub_/);
    expect(distribution.key).toMatch(/^om_test_dist_/);
    expect(submission.base_url).toBe('http://localhost:80/submission/beta');
    expect(distribution.base_url).toBe('http://localhost:80/distribution/beta');

    // The distribution key searches; the submission key submits an offer.
    const search = await h.app.inject({
      method: 'GET',
      url: `${DIST}/offers?country_code=US&per_page=1`,
      headers: { 'x-service-api-key': distribution.key },
    });
    expect(search.statusCode).toBe(200);
    const offer = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers`,
      headers: { 'x-service-api-key': submission.key },
      payload: { offer: validOffer({ title: 'Signed-up dinner' }) },
    });
    expect(offer.statusCode).toBe(200);
    expect(offer.json().offer).toMatchObject({ title: 'Signed-up dinner', status: 'pending' });
    // Each key opens its own interface only.
    const crossed = await h.app.inject({
      method: 'GET',
      url: `${SUB}/offers`,
      headers: { 'x-service-api-key': distribution.key },
    });
    expect(crossed.statusCode).toBe(403);

    // Recorded: the address (lower-case), the two clients, where it came from. Keys only hashed.
    const row = await signupOf(h.services, given.toUpperCase());
    expect(row).toMatchObject({
      id: signup.id,
      email: given.toLowerCase(),
      submission_client_id: submission.client_id,
      distribution_client_id: distribution.client_id,
      client_address: address,
    });
    const clients = await h.services.db
      .selectFrom('api_clients')
      .selectAll()
      .where('id', 'in', [submission.client_id, distribution.client_id])
      .orderBy('interface', 'desc')
      .execute();
    expect(clients.map((c) => [c.interface, c.environment, c.name, c.reservations_enabled])).toEqual([
      ['submission', 'sandbox', `Deals Blog (${given.toLowerCase()})`, false],
      ['distribution', 'sandbox', `Deals Blog (${given.toLowerCase()})`, false],
    ]);
    expect(JSON.stringify(clients)).not.toContain(submission.key);
  });

  it('speaks XML like every route', async () => {
    const given = email('xml');
    const res = await h.app.inject({
      method: 'POST',
      url: `${API}.xml`,
      remoteAddress: freshAddress(),
      headers: { 'content-type': 'application/xml' },
      payload: `<signup><email>${given}</email></signup>`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.body).toContain(`<email>${given}</email>`);
    expect(res.body).toMatch(/<submission><client_id>cli_[^<]+<\/client_id><key>om_test_sub_/);
  });

  it.each([
    ['a malformed address', { signup: { email: 'not-an-email' } }, 'invalid_field', 'email'],
    ['no address', { signup: { name: 'Nobody' } }, 'invalid_field', 'email'],
    ['an address past 254 characters', { signup: { email: `${'a'.repeat(250)}@example.com` } }, 'invalid_field', 'email'],
    ['an empty name', { signup: { email: email('blank'), name: '  ' } }, 'invalid_field', 'name'],
    ['an unknown field', { signup: { email: email('extra'), password: 'x' } }, 'unknown_field', 'password'],
  ])('refuses %s with 422 naming the field, creating nothing', async (_what, body, code, field) => {
    const before = await h.services.db
      .selectFrom('api_clients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await signUp(h, body);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 'ERROR', errors: [{ code, field }] });
    const after = await h.services.db
      .selectFrom('api_clients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('refuses a second sign-up of the same address (any case) with 409 duplicate, and leaves no key behind', async () => {
    const given = email('twice');
    expect((await signUp(h, { signup: { email: given } })).statusCode).toBe(200);
    const clientsBefore = await h.services.db.selectFrom('api_clients').select('id').execute();
    const again = await signUp(h, { signup: { email: given.toUpperCase(), name: 'Someone else' } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ status: 'ERROR', errors: [{ code: 'duplicate', field: 'email' }] });
    expect(JSON.stringify(again.json())).not.toMatch(/om_test_/);
    // Two at once: one wins, the other is refused; still one account.
    const raced = email('race');
    const both = await Promise.all([signUp(h, { signup: { email: raced } }), signUp(h, { signup: { email: raced } })]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const clientsAfter = await h.services.db.selectFrom('api_clients').select('id').execute();
    expect(clientsAfter.length).toBe(clientsBefore.length + 2);
  });

  it('allows 5 attempts per hour per client address (page and API together), then 429 with Retry-After', async () => {
    const address = freshAddress();
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await signUp(h, { signup: { email: email('burst') } }, address)).statusCode);
    codes.push((await signUp(h, { signup: { email: 'broken' } }, address)).statusCode); // refused attempts count too
    codes.push((await postForm(h, { email: email('burst-page') }, address)).statusCode);
    expect(codes).toEqual([200, 200, 200, 422, 200]);

    const limited = await signUp(h, { signup: { email: email('burst') } }, address);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      status: 'ERROR',
      errors: [{ code: 'rate_limited', message: expect.stringMatching(/5 sign-ups per hour/) }],
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3500);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(limited.headers['x-ratelimit-limit']).toBe('5');

    const page = await postForm(h, { email: email('burst-page') }, address);
    expect(page.statusCode).toBe(429);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(page.headers['retry-after'])).toBeGreaterThan(3500);
    expect(page.body).toContain('5 sign-ups per hour');

    // Another address is not affected; the form page itself still shows.
    expect((await signUp(h, { signup: { email: email('other') } })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: PAGE, remoteAddress: address })).statusCode).toBe(200);
  });

  it('counts behind a trusted proxy by the forwarded client address, and never by an untrusted header', async () => {
    const proxied = await createHarness({
      env: { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_PER_SECOND: '50' },
      fixed: { DEVELOPER_SIGNUPS_PER_HOUR: 1 },
    });
    try {
      const via = (client: string) =>
        proxied.app.inject({
          method: 'POST',
          url: API,
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': client },
          payload: { signup: { email: email('proxied') } },
        });
      expect((await via('203.0.113.10')).statusCode).toBe(200);
      expect((await via('203.0.113.10')).statusCode).toBe(429);
      expect((await via('203.0.113.11')).statusCode).toBe(200);
      // From an address that is not the proxy, X-Forwarded-For is ignored: the peer is counted.
      const direct = (client: string) =>
        proxied.app.inject({
          method: 'POST',
          url: API,
          remoteAddress: '192.0.2.50',
          headers: { 'x-forwarded-for': client },
          payload: { signup: { email: email('direct') } },
        });
      expect((await direct('203.0.113.20')).statusCode).toBe(200);
      expect((await direct('203.0.113.21')).statusCode).toBe(429);
    } finally {
      await proxied.close();
    }
  });

  describe('the page', () => {
    it('renders the form with the pages’ security headers', async () => {
      const res = await h.app.inject({ method: 'GET', url: PAGE });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['content-security-policy']).toContain("form-action 'self'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain(`<form method="post" action="${PAGE}">`);
      expect(res.body).toContain('name="email"');
      expect(res.body).not.toMatch(/<script/i);
    });

    it('shows the shared demonstration key and what it may do, on the page and above the API reference; never a revoked one', async () => {
      const key = await demoKey(h.services);
      const page = await h.app.inject({ method: 'GET', url: PAGE });
      expect(testId(page.body, 'demo-key')).toBe(key);
      expect(page.body).toContain('search and read offers and categories');
      const docs = await h.app.inject({ method: 'GET', url: '/docs/' });
      expect(docs.statusCode).toBe(200);
      expect(testId(docs.body, 'demo-key')).toBe(key);
      expect(docs.headers['cache-control']).toBe('no-store');

      // An operator revoked it: the pages stop showing it, and showing them does not revive it.
      await revokeApiKey(h.services, DEMO_CLIENT_ID);
      try {
        for (const url of [PAGE, '/docs/'])
          expect((await h.app.inject({ method: 'GET', url })).body).not.toContain('data-testid="demo-key"');
        const search = await h.app.inject({ method: 'GET', url: `${DIST}/offers`, headers: { 'x-service-api-key': key } });
        expect(search.statusCode).toBe(401);
      } finally {
        await demoKey(h.services); // `admin keys demo` brings it back, for the other tests
      }
    });

    it('posts the form and shows the keys, which work', async () => {
      const given = email('page');
      const res = await postForm(h, { email: given, name: '<b>Café & Co</b>' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      // Not `no-referrer`: with it browsers send the form's own post with `Origin: null`, refused.
      expect(res.headers['referrer-policy']).toBe('same-origin');
      expect(res.body).toContain('&lt;b&gt;Café &amp; Co&lt;/b&gt;');
      expect(res.body).not.toContain('<b>Café');
      const sub = testId(res.body, 'submission-key')!;
      const dist = testId(res.body, 'distribution-key')!;
      expect(sub).toMatch(/^om_test_sub_/);
      expect(dist).toMatch(/^om_test_dist_/);
      const categories = await h.app.inject({ method: 'GET', url: `${SUB}/categories`, headers: { 'x-service-api-key': sub } });
      expect(categories.statusCode).toBe(200);
      const search = await h.app.inject({ method: 'GET', url: `${DIST}/offers`, headers: { 'x-service-api-key': dist } });
      expect(search.statusCode).toBe(200);
      expect((await signupOf(h.services, given))?.name).toBe('<b>Café & Co</b>');
    });

    it('shows the form again with the reason for a bad or taken address, what was typed escaped', async () => {
      const bad = await postForm(h, { email: '"><script>alert(1)</script>' });
      expect(bad.statusCode).toBe(422);
      expect(bad.body).toContain('Email address: must be an email address');
      expect(bad.body).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
      expect(bad.body).not.toContain('<script>');

      const given = email('page-twice');
      expect((await postForm(h, { email: given })).statusCode).toBe(200);
      const again = await postForm(h, { email: given });
      expect(again.statusCode).toBe(409);
      expect(again.body).toContain('exists already');
      expect(again.body).not.toMatch(/om_test_/);
    });

    it('refuses a form posted from another site (403), without spending the address’s budget', async () => {
      const address = freshAddress();
      for (let i = 0; i < 6; i++) {
        const res = await postForm(h, { email: email('csrf') }, address, { origin: 'https://evil.example' });
        expect(res.statusCode).toBe(403);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
      }
      expect((await postForm(h, { email: email('csrf-own') }, address)).statusCode).toBe(200);
    });
  });
});

describe('developer sign-up where it is off', () => {
  it('answers 404 in production: API, page and document, with the reason', async () => {
    const h = await createHarness({ env: { SERVICE_ENVIRONMENT: 'production' }, fixed: { REQUIRE_HTTPS: false } });
    try {
      const api = await h.app.inject({ method: 'POST', url: API, payload: { signup: { email: email('prod') } } });
      expect(api.statusCode).toBe(404);
      expect(api.json()).toMatchObject({
        status: 'ERROR',
        errors: [{ code: 'not_found', message: expect.stringMatching(/only in the sandbox/) }],
      });
      const page = await h.app.inject({ method: 'GET', url: PAGE });
      expect(page.statusCode).toBe(404);
      expect(page.body).toContain('production environment');
      const form = await h.app.inject({
        method: 'POST',
        url: PAGE,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
        payload: 'email=x%40example.com',
      });
      expect(form.statusCode).toBe(404);
      expect((await h.app.inject({ method: 'GET', url: `${DEV}/openapi.json` })).statusCode).toBe(404);
      // No demonstration key in production: the API reference shows none.
      const docs = await h.app.inject({ method: 'GET', url: '/docs/' });
      expect(docs.statusCode).toBe(200);
      expect(docs.body).toContain('<div id="swagger-ui"></div>');
      expect(docs.body).not.toMatch(/demo-key|om_test_dist_demo_/);
      expect(await h.services.db.selectFrom('developer_signups').selectAll().where('email', 'like', 'prod-%').execute()).toEqual([]);
      await expect(signupOf(h.services, 'nobody@example.com')).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await h.close();
    }
  });

  it('answers 404 in a sandbox with DEVELOPER_SIGNUP=off', async () => {
    const h = await createHarness({ env: { DEVELOPER_SIGNUP: 'off' } });
    try {
      const api = await h.app.inject({ method: 'POST', url: API, payload: { signup: { email: email('off') } } });
      expect(api.statusCode).toBe(404);
      expect(api.json().errors[0].message).toMatch(/DEVELOPER_SIGNUP=off/);
      expect((await h.app.inject({ method: 'GET', url: PAGE })).statusCode).toBe(404);
    } finally {
      await h.close();
    }
  });

  it('cannot be turned on in production', () => {
    expect(() => loadConfig({ SERVICE_ENVIRONMENT: 'production', DEVELOPER_SIGNUP: 'on' })).toThrow(ConfigError);
    expect(() => loadConfig({ SERVICE_ENVIRONMENT: 'production', DEVELOPER_SIGNUP: 'on' })).toThrow(/DEVELOPER_SIGNUP:/);
    expect(loadConfig({ SERVICE_ENVIRONMENT: 'production' }).DEVELOPER_SIGNUP).toBe(false);
    expect(loadConfig({}).DEVELOPER_SIGNUP).toBe(true);
    expect(loadConfig({ DEVELOPER_SIGNUP: 'off' }).DEVELOPER_SIGNUP).toBe(false);
  });
});

describe('developer sign-up budget shared by API processes', () => {
  it('two API processes (each with its own connections) count one address together in Postgres', async () => {
    const opts = { env: { RATE_LIMIT_PER_SECOND: '50' }, fixed: { DEVELOPER_SIGNUPS_PER_HOUR: 3 } };
    const [a, b] = [await createHarness(opts), await createHarness(opts)];
    try {
      const address = freshAddress();
      const answers = [];
      for (const h of [a, b, a, b]) answers.push(await signUp(h, { signup: { email: email('shared') } }, address));
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
      expect(answers[3].json().errors[0].message).toMatch(/3 sign-ups per hour/);
      expect(Number(answers[3].headers['retry-after'])).toBeGreaterThan(3500);
      // Another address still signs up on either process.
      expect((await signUp(b, { signup: { email: email('shared') } })).statusCode).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
