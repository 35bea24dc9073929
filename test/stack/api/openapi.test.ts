import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OBSOLETE_USER_ROUTES } from '../../../api/routes/shared/obsolete-users';
import { validOffer } from '../../setup/fixtures';
import { makePng, multipart } from '../../setup/files';
import { createHarness, type Harness } from '../../setup/harness';
import { DEV, DIST, SUB } from '../../setup/paths';

describe('OpenAPI documents', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const doc = async (iface: string) => {
    const res = await h.app.inject({ method: 'GET', url: `/${iface}/beta/openapi.json` });
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  const DOCUMENTS = ['submission', 'distribution', 'developer'];

  /** An operation's answer for `code`, read through its reference when it is a named response. */
  const answer = (d: Document, op: { responses: Record<string, Answer> }, code: string): Answer => {
    const r = op.responses[code]!;
    return r.$ref ? d.components.responses[r.$ref.replace('#/components/responses/', '')]! : r;
  };

  it.each(DOCUMENTS)('the %s document is valid OpenAPI 3.1', async (iface) => {
    expect(await validateOpenApi(await doc(iface))).toBe('valid');
  });

  it.each(DOCUMENTS)(
    'the %s document lints clean under Redocly (recommended rules, redocly.yaml): zero errors, zero warnings',
    async (iface) => {
      const problems = await redoclyLint(await doc(iface));
      expect(problems).toEqual([]);
    },
  );

  it('serves no document but these three: the reference lists exactly them, and no combined one is served at /docs/json or /docs/yaml', async () => {
    const init = (await h.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })).body;
    const listed = [...init.matchAll(/\/(\w+)\/beta\/openapi\.json/g)].map((m) => m[1]);
    expect([...new Set(listed)].sort()).toEqual([...DOCUMENTS].sort());
    for (const url of ['/docs/json', '/docs/yaml', '/docs/yaml?x=1']) {
      const res = await h.app.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 404]);
      expect(res.body).toContain('/submission/beta/openapi.json');
    }
  });

  it.each(DOCUMENTS)('the %s document gives every 2xx answer a body: a media type with a schema', async (iface) => {
    const d = await doc(iface);
    const bare: string[] = [];
    for (const [p, item] of Object.entries<Record<string, { responses?: Record<string, Answer> }>>(d.paths))
      for (const [method, op] of Object.entries(item)) {
        for (const code of Object.keys(op.responses ?? {}).filter((c) => c.startsWith('2'))) {
          const content = answer(d, op as { responses: Record<string, Answer> }, code).content ?? {};
          if (Object.keys(content).length === 0 || Object.values(content).some((m) => !m.schema)) bare.push(`${method} ${p} ${code}`);
        }
      }
    expect(bare).toEqual([]);
  });

  it.each(['submission', 'distribution'])('the %s document shows /statement.csv answering text/csv, not JSON', async (iface) => {
    const d = await doc(iface);
    const ok = answer(d, d.paths['/statement.csv'].get, '200');
    expect(Object.keys(ok.content)).toEqual(['text/csv']);
    expect(ok.content['text/csv'].schema).toMatchObject({ type: 'string' });
  });

  it('names every operation for client generators: a unique operationId, a summary and a tag', async () => {
    for (const iface of DOCUMENTS) {
      const d = await doc(iface);
      const ids: string[] = [];
      for (const ops of Object.values(
        d.paths as Record<string, Record<string, { operationId: string; summary: string; tags: string[] }>>,
      )) {
        for (const op of Object.values(ops)) {
          expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
          expect(op.summary).toEqual(expect.any(String));
          expect(op.tags).toHaveLength(1);
          ids.push(op.operationId);
        }
      }
      expect(new Set(ids).size).toBe(ids.length);
    }
    // Renaming one breaks every generated client: these are API.
    expect((await doc('distribution')).paths['/orders'].post.operationId).toBe('createOrder');
    expect((await doc('distribution')).paths['/offers'].get.operationId).toBe('listOffers');
    expect((await doc('submission')).paths['/offers/{id}/vouchers/{voucher_id}'].put.operationId).toBe('updateVoucher');
    expect((await doc('developer')).paths['/signups'].post.operationId).toBe('createSignup');
    // Sign-up needs no key: the document says so, and promises no 401.
    expect((await doc('developer')).paths['/signups'].post.security).toEqual([]);
    expect((await doc('developer')).paths['/signups'].post.responses['401']).toBeUndefined();
    expect((await doc('developer')).servers).toEqual([{ url: DEV }]);
    const body = (await doc('distribution')).paths['/orders'].post.requestBody.content;
    expect(body['application/json'].example.order.items).toHaveLength(1);
  });

  it('lists every registered route of each interface', async () => {
    const documented = new Set<string>();
    for (const iface of DOCUMENTS) {
      const d = await doc(iface);
      for (const [p, ops] of Object.entries(d.paths as Record<string, object>)) {
        for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} /${iface}/beta${p.replace(/\{(\w+)\}/g, ':$1')}`);
      }
    }
    // The obsolete User endpoints only answer 410 (test/stack/api/paths-and-gone.test.ts): nothing to call, so not listed.
    const gone = new Set(OBSOLETE_USER_ROUTES.map((r) => r.url));
    const interfaceRoutes = h.app.registeredRoutes.filter(
      (r) =>
        /^\/(submission|distribution|developer)\/beta\//.test(r.url) &&
        !r.url.endsWith('/openapi') &&
        r.method !== 'HEAD' &&
        !gone.has(r.url.replace(/^\/\w+\/beta/, '')),
    );
    expect(interfaceRoutes.length).toBeGreaterThan(5);
    for (const r of interfaceRoutes) expect(documented).toContain(`${r.method} ${r.url}`);
  });

  it('documents XML and the error envelope', async () => {
    const d = await doc('submission');
    const post = d.paths['/offers'].post;
    expect(Object.keys(post.requestBody.content)).toEqual(expect.arrayContaining(['application/json', 'application/xml']));
    expect(Object.keys(answer(d, post, '200').content)).toEqual(expect.arrayContaining(['application/json', 'application/xml']));
    // Every error answer is one named response, whose body is the one Error schema in JSON and XML.
    expect(post.responses['422']).toEqual({ $ref: '#/components/responses/UnprocessableEntity' });
    expect(answer(d, post, '422').content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Error' } },
      'application/xml': { schema: { $ref: '#/components/schemas/Error' } },
    });
    expect(d.servers).toEqual([{ url: SUB }]);
  });

  it('live answers match the response schemas the documents publish', async () => {
    const worker = await h.startWorker();
    const sub = await h.key('submission');
    const dist = await h.key('distribution');
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const docs = { submission: await doc('submission'), distribution: await doc('distribution') };
    const checkLive = async (
      iface: 'submission' | 'distribution',
      method: 'GET' | 'POST' | 'PUT',
      path: string,
      template: string,
      payload?: object,
      opts: { key?: string; headers?: Record<string, string> } = {},
    ) => {
      const key = opts.key ?? (iface === 'submission' ? sub : dist);
      const res = await h.app.inject({
        method,
        url: `/${iface}/beta${path}`,
        headers: { 'x-service-api-key': key, ...opts.headers },
        ...(payload ? { payload: payload as object } : {}),
      });
      const d = docs[iface];
      const schema = answer(d, d.paths[template][method.toLowerCase()], String(res.statusCode)).content['application/json']!.schema;
      const validate = ajv.compile({ ...schema, components: d.components });
      expect([`${method} ${template} ${res.statusCode}`, validate(res.json()) ? 'valid' : ajv.errorsText(validate.errors)]).toEqual([
        `${method} ${template} ${res.statusCode}`,
        'valid',
      ]);
      return res.json();
    };
    const offer = (await checkLive('submission', 'POST', '/offers', '/offers', { offer: validOffer() })).offer;
    await checkLive('submission', 'GET', '/offers', '/offers');
    await checkLive('submission', 'GET', `/offers/${offer.id}`, '/offers/{id}');
    await checkLive('submission', 'GET', '/categories', '/categories');
    await checkLive('submission', 'GET', '/offers/ofr_missing', '/offers/{id}');
    await checkLive('submission', 'POST', '/offers', '/offers', { offer: { title: '' } });
    await h.services.db.updateTable('offers').set({ status: 'approved', published_at: new Date() }).where('id', '=', offer.id).execute();
    await checkLive('distribution', 'GET', '/offers?country_code=US', '/offers');
    // Radius searches around coordinates: the documents type radius, lat and lng (and the long
    // names) as numbers with their bounds, which is what a typed client sends in the query. Newest
    // first: the suite's other offers stand at the same address, and ties by distance fill a page.
    const near = await checkLive(
      'distribution',
      'GET',
      '/offers?lat=40.7484&lng=-73.9857&radius=2.5&sort_by=published_at%20desc',
      '/offers',
    );
    await checkLive('distribution', 'GET', '/offers?lat=40.7484&lng=-73.9857&radius=2.5&sort_by=distance%20asc', '/offers');
    expect(near.offers.map((o: { id: string }) => o.id)).toContain(offer.id);
    await checkLive('distribution', 'GET', '/offers?latitude=40.7484&longitude=-73.9857&radius=5', '/offers');
    const params = docs.distribution.paths['/offers'].get.parameters as Array<{ name: string; schema: object }>;
    const accepts = (name: string, value: unknown) => ajv.validate(params.find((p) => p.name === name)!.schema, value);
    expect(['radius', 'lat', 'lng', 'latitude', 'longitude'].map((n) => [n, accepts(n, 2.5), accepts(n, '2.5'), accepts(n, 1000)])).toEqual(
      [
        ['radius', true, false, false],
        ['lat', true, false, false],
        ['lng', true, false, false],
        ['latitude', true, false, false],
        ['longitude', true, false, false],
      ],
    );
    expect([accepts('radius', 0), accepts('lat', -90), accepts('lng', 180)]).toEqual([false, true, true]);
    await checkLive('distribution', 'GET', `/offers/${offer.id}`, '/offers/{id}');
    const order = (
      await checkLive('distribution', 'POST', '/orders', '/orders', {
        order: { order_number: 'doc-1', customer_name: 'Ada', items: [{ offer_id: offer.id, quantity: 1 }] },
      })
    ).order;
    await checkLive('distribution', 'GET', `/orders/${order.id}`, '/orders/{id}');
    await checkLive('distribution', 'PUT', `/offers/${offer.id}/vouchers/${order.vouchers[0].id}`, '/offers/{id}/vouchers/{voucher_id}', {
      voucher: { status: 'redeemed' },
    });
    await checkLive('distribution', 'POST', '/accounts', '/accounts', { account: { name: 'Blog', website_url: 'https://blog.example' } });
    // An upload: file_size, in kilobytes, never below 0.
    const upload = multipart([{ filename: 'a.png', content: makePng() }]);
    const attachment = (await checkLive('submission', 'POST', '/attachments', '/attachments', upload.payload, { headers: upload.headers }))
      .attachment;
    expect(attachment.file_size).toBeGreaterThanOrEqual(1);
    await checkLive('submission', 'GET', `/attachments/${attachment.id}`, '/attachments/{id}');
    // Reservations in each status the enum documents, `expired` (not in the spec) included.
    const holder = await h.key('distribution', { reservations: true });
    const accountId = (
      await checkLive(
        'distribution',
        'POST',
        '/accounts',
        '/accounts',
        { account: { name: 'Holder', website_url: 'https://h.example' } },
        { key: holder },
      )
    ).account.id;
    await checkLive('distribution', 'PUT', `/accounts/${accountId}`, '/accounts/{id}', { account: { status: 'active' } }, { key: holder });
    const today = new Date().toISOString().slice(0, 10);
    const reservation = (
      await checkLive(
        'distribution',
        'POST',
        `/offers/${offer.id}/reservations`,
        '/offers/{id}/reservations',
        { reservation: { account_id: accountId, quantity_reserved: 2, start_date: today, end_date: '2099-01-01' } },
        { key: holder },
      )
    ).reservation;
    expect(reservation.status).toBe('active');
    const one = `/offers/${offer.id}/reservations/${reservation.id}`;
    const oneTemplate = '/offers/{id}/reservations/{reservation_id}';
    await checkLive('distribution', 'GET', one, oneTemplate, undefined, { key: holder });
    await h.app.inject({ method: 'DELETE', url: `${DIST}${one}`, headers: { 'x-service-api-key': holder } });
    expect((await checkLive('distribution', 'GET', one, oneTemplate, undefined, { key: holder })).reservation.status).toBe('cancelled');
    // The reservation-window timer ends a hold at the end of its end_date, days away: its mark in the store stands in.
    await h.services.db.updateTable('reservations').set({ status: 'expired' }).where('id', '=', reservation.id).execute();
    expect((await checkLive('distribution', 'GET', one, oneTemplate, undefined, { key: holder })).reservation.status).toBe('expired');
    const expired = await checkLive(
      'distribution',
      'GET',
      `/offers/${offer.id}/reservations?status=expired`,
      '/offers/{id}/reservations',
      undefined,
      { key: holder },
    );
    expect(expired.reservations.map((r: { id: string }) => r.id)).toEqual([reservation.id]);
    // The keyless sign-up, answered and refused.
    const developer = await doc('developer');
    for (const [payload, status] of [
      [{ signup: { email: `openapi-${Date.now()}@example.com`, name: 'Docs' } }, 200],
      [{ signup: { email: 'nope' } }, 422],
    ] as const) {
      // An address of its own: sign-up budgets are counted in the suite's one Postgres, for every test file.
      const res = await h.app.inject({ method: 'POST', url: `${DEV}/signups`, payload, remoteAddress: '192.0.2.232' });
      expect(res.statusCode).toBe(status);
      const validate = ajv.compile({
        ...answer(developer, developer.paths['/signups'].post, String(status)).content['application/json']!.schema,
        components: developer.components,
      });
      expect(validate(res.json()) ? 'valid' : ajv.errorsText(validate.errors)).toBe('valid');
    }
    await worker.shutdown();
  });

  it('serves a browsable reference at /docs without any network', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/swagger/i);
    const init = await h.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.body).toContain(`${SUB}/openapi.json`);
  });
});

/** A served document, read as JSON. */
type Document = any;
type Answer = { $ref?: string; description?: string; content: Record<string, { schema: object }> };

/**
 * Validates with @apidevtools/swagger-parser in a plain Node process: the validator's ESM
 * dependencies load there (require(esm)) but not inside jest's module system.
 */
function validateOpenApi(document: unknown): Promise<string> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'doc.json');
  fs.writeFileSync(file, JSON.stringify(document));
  const script = `require('@apidevtools/swagger-parser').validate(${JSON.stringify(file)}).then(() => console.log('valid'), (e) => console.log(e.message))`;
  return new Promise((resolve) =>
    execFile(process.execPath, ['-e', script], { cwd: path.resolve(__dirname, '..', '..', '..') }, (_e, out) => resolve(out.trim())),
  );
}

/**
 * Lints with @redocly/cli in a plain Node process (an ES module, which jest's module system cannot
 * load), with the project's redocly.yaml; returns each problem as `rule severity pointer: message`.
 */
function redoclyLint(document: unknown): Promise<string[]> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'doc.json');
  fs.writeFileSync(file, JSON.stringify(document));
  const root = path.resolve(__dirname, '..', '..', '..');
  const cli = path.join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [cli, 'lint', file, '--format=json'],
      { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 << 20 },
      (_e, out, err) => {
        try {
          const report = JSON.parse(out) as {
            problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
          };
          resolve(report.problems.map((p) => `${p.ruleId} ${p.severity} ${p.location[0]?.pointer}: ${p.message}`));
        } catch {
          reject(new Error(`redocly lint gave no report: ${err}`));
        }
      },
    ),
  );
}
