import { Writable } from 'node:stream';
import { buildApp } from '../../../api/app';
import { createApiKey } from '../../../services/api-clients';
import { loadConfig } from '../../../platform/config';
import { createLogger } from '../../../platform/logger';
import { connectServices } from '../../../main';
import { resolveEndpoints } from '../../../platform/endpoints';
import { seedOffer } from '../../setup/fixtures';
import { createHarness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/** A stream that keeps every log line written to it, as text. */
function logSink() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('structured request logs', () => {
  it('carry request id, client id, route, status and latency — and never the key', async () => {
    const sink = logSink();
    const config = loadConfig(process.env);
    const services = await connectServices(config, resolveEndpoints(config), createLogger('info', { stream: sink.stream }));
    const app = await buildApp(services);
    try {
      const { key, clientId } = await createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
      const res = await app.inject({ method: 'GET', url: `${SUB}/categories?per_page=3`, headers: { 'x-service-api-key': key } });
      const bad = await app.inject({ method: 'GET', url: `${SUB}/offers/ofr_unknown`, headers: { 'x-service-api-key': key } });
      await new Promise((r) => setImmediate(r));
      const done = sink.lines().filter((l) => l.msg === 'request completed');
      expect(done).toContainEqual(
        expect.objectContaining({
          reqId: res.headers['x-request-id'],
          client_id: clientId,
          method: 'GET',
          route: `${SUB}/categories`,
          url: `${SUB}/categories?per_page=3`,
          status: 200,
          latency_ms: expect.any(Number),
        }),
      );
      expect(done).toContainEqual(expect.objectContaining({ reqId: bad.headers['x-request-id'], route: `${SUB}/offers/:id`, status: 404 }));
      expect(bad.json().request_id).toBe(bad.headers['x-request-id']);
      expect(sink.text()).not.toContain(key);
    } finally {
      await app.close();
      await services.close();
    }
  });
});

/*
 * The log of a whole journey — an order, the customer's voucher page, an API key in a query
 * string, a code and a barcode looked up and redeemed, a wrong console login — read back at debug
 * level (the worker's logs included): no credential of it appears anywhere, in any form.
 */
describe('the log of a journey holds no credential', () => {
  it('voucher-page tokens, API keys in queries, redemption codes, barcodes and passwords are redacted', async () => {
    const sink = logSink();
    const opsPassword = 'the operators passphrase 42';
    const h = await createHarness({
      worker: true,
      logStream: sink.stream,
      env: { LOG_LEVEL: 'debug' },
    });
    await h.operator('ana-logging', opsPassword);
    const secrets: string[] = [opsPassword];
    try {
      const sub = await h.client('submission');
      const dist = await h.key('distribution');
      secrets.push(sub.key, dist);
      const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
      const order = await h.app.inject({
        method: 'POST',
        url: `${DIST}/orders`,
        headers: { 'x-service-api-key': dist },
        payload: { order: { order_number: `log-${Date.now()}`, customer_name: 'Ada', items: [{ offer_id: offerId, quantity: 2 }] } },
      });
      expect(order.statusCode).toBe(200);
      const [v1, v2] = order.json().order.vouchers as Array<{ redemption_code: string; barcode: string; print_url: string }>;
      const pagePath = (v: { print_url: string }) => new URL(v.print_url).pathname;
      const token = pagePath(v1).split('/').pop()!;
      secrets.push(token, v1.redemption_code, v1.barcode, v2.redemption_code, v2.barcode);
      const { advertiser_id: adv } = await h.services.db
        .selectFrom('offers')
        .select('advertiser_id')
        .where('id', '=', offerId)
        .executeTakeFirstOrThrow();

      // The customer's page, and a wrong token.
      expect((await h.app.inject({ method: 'GET', url: pagePath(v1) })).statusCode).toBe(200);
      expect((await h.app.inject({ method: 'GET', url: `${pagePath(v1)}x?token=${token}` })).statusCode).toBe(404);
      // An API key in the query string: not how keys are sent, and refused, but logged all the same.
      expect((await h.app.inject({ method: 'GET', url: `${SUB}/categories?api_key=${sub.key}&per_page=2` })).statusCode).toBe(401);
      await h.app.inject({ method: 'GET', url: `${SUB}/categories?key=${dist}`, headers: { 'x-service-api-key': sub.key } });
      // A code and a barcode looked up, a code redeemed, an unknown code (404).
      const headers = { 'x-service-api-key': sub.key };
      const byRef = (ref: string) => `${SUB}/advertisers/${adv}/vouchers/${encodeURIComponent(ref)}`;
      expect((await h.app.inject({ method: 'GET', url: byRef(v1.barcode), headers })).statusCode).toBe(200);
      expect((await h.app.inject({ method: 'GET', url: `${byRef(v2.redemption_code)}.xml`, headers })).statusCode).toBe(200);
      const redeem = await h.app.inject({
        method: 'PUT',
        url: byRef(v1.redemption_code),
        headers,
        payload: { voucher: { status: 'redeemed' } },
      });
      expect(redeem.statusCode).toBe(200);
      expect((await h.app.inject({ method: 'GET', url: byRef(`${v2.barcode}9`), headers })).statusCode).toBe(404);
      // A wrong console password, and a right one.
      const basic = (p: string) => `Basic ${Buffer.from(`ana-logging:${p}`).toString('base64')}`;
      expect((await h.app.inject({ method: 'GET', url: '/ops', headers: { authorization: basic(`${opsPassword}!`) } })).statusCode).toBe(
        401,
      );
      expect((await h.app.inject({ method: 'GET', url: '/ops', headers: { authorization: basic(opsPassword) } })).statusCode).toBe(200);
      // A counter staff member's sign-in link and code, the session cookie, and a code looked up at the counter.
      const staff = await h.app.inject({
        method: 'POST',
        url: `${SUB}/redemption_staff`,
        headers,
        payload: { redemption_staff: { name: 'Ana', advertiser_id: adv } },
      });
      const signIn = staff.json().redemption_staff.sign_in as { url: string; code: string };
      secrets.push(signIn.code, signIn.code.replace(/-/g, ''));
      expect((await h.app.inject({ method: 'GET', url: new URL(signIn.url).pathname })).statusCode).toBe(200);
      const session = await h.app.inject({
        method: 'POST',
        url: '/merchant/sign-in',
        headers: { origin: 'http://localhost:80' },
        payload: { code: signIn.code },
      });
      const cookie = String(session.headers['set-cookie']).split(';')[0];
      secrets.push(cookie.split('=')[1]);
      const lookup = await h.app.inject({ method: 'GET', url: `/merchant/vouchers?code=${v2.redemption_code}`, headers: { cookie } });
      expect(lookup.statusCode).toBe(200);
    } finally {
      await h.close();
    }
    await new Promise((r) => setImmediate(r));
    const logged = sink.text();
    // The journey was logged (so the absence below means something), with its credentials replaced.
    expect(logged).toContain('"url":"/customer/vouchers/[redacted]"');
    expect(logged).toContain('api_key=[redacted]&per_page=2');
    expect(logged).toContain('"url":"/merchant/sign-in/[redacted]"');
    expect(logged).toMatch(/advertisers\/adv_[^/]+\/vouchers\/\[redacted\]/);
    for (const secret of secrets) {
      for (const form of new Set([secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')])) {
        expect({ secret: form, logged: logged.includes(form) }).toEqual({ secret: form, logged: false });
      }
    }
  });
});
