import { Writable } from 'node:stream';
import pino from 'pino';
import { buildApp } from '../../../api/app';
import { loadConfig } from '../../../platform/config';
import { createApiKey } from '../../../services/api-clients';
import { connectServices } from '../../../main';
import { resolveEndpoints } from '../../../platform/endpoints';
import { makePng, multipart } from '../../setup/files';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';

const wrongLogin = `Basic ${Buffer.from('ana-proxy:wrong password!').toString('base64')}`;

/** 21 wrong console logins, each claiming another address in X-Forwarded-For; the statuses of the last few. */
async function wrongLogins(h: Harness, forwardedFor: (i: number) => string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 22; i++) {
    const res = await h.app.inject({
      method: 'GET',
      url: '/ops',
      headers: { authorization: wrongLogin, 'x-forwarded-for': forwardedFor(i) },
    });
    statuses.push(res.statusCode);
  }
  return statuses.slice(-2);
}

async function uploadPng(h: Harness, headers: Record<string, string>) {
  const key = await h.key('submission');
  const body = multipart([{ filename: 'p.png', content: makePng() }]);
  const res = await h.app.inject({
    method: 'POST',
    url: `${SUB}/attachments`,
    headers: { 'x-service-api-key': key, ...body.headers, ...headers },
    payload: body.payload,
  });
  expect(res.statusCode).toBe(200);
  return res.json().attachment.download_url as string;
}

describe('without TRUST_PROXY (the default), X-Forwarded-* headers are not believed', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.operator('ana-proxy', 'a long random passphrase');
  });
  afterAll(() => h.close());

  it('the console lockout counts the real address, whatever X-Forwarded-For says', async () => {
    expect(await wrongLogins(h, (i) => `203.0.113.${i}`)).toEqual([429, 429]);
  });

  it('X-Forwarded-Host and -Proto do not steer download_url', async () => {
    const url = await uploadPng(h, { host: 'api.internal:3000', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
    expect(url).toMatch(/^http:\/\/api\.internal:3000\/submission\/beta\/attachments\/att_[^/]+\/download$/);
  });
});

describe('TRUST_PROXY=1 (one proxy in front)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { TRUST_PROXY: '1' } });
    await h.operator('ana-proxy', 'a long random passphrase');
  });
  afterAll(() => h.close());

  it('locks out the address the proxy reports, and only that one', async () => {
    expect(await wrongLogins(h, () => '198.51.100.7')).toEqual([429, 429]);
    const other = await h.app.inject({
      method: 'GET',
      url: '/ops',
      headers: { authorization: wrongLogin, 'x-forwarded-for': '198.51.100.8' },
    });
    expect(other.statusCode).toBe(401);
  });
});

describe('PUBLIC_BASE_URL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { PUBLIC_BASE_URL: 'https://offers.example.com/' } });
  });
  afterAll(() => h.close());

  it('is the base of absolute URLs, whatever Host the request carried', async () => {
    const url = await uploadPng(h, { host: 'evil.example', 'x-forwarded-host': 'evil2.example' });
    expect(url).toMatch(/^https:\/\/offers\.example\.com\/submission\/beta\/attachments\/att_[^/]+\/download$/);
  });
});

describe('/metrics exposure', () => {
  it('without METRICS_TOKEN answers only the local machine', async () => {
    const h = await createHarness();
    try {
      expect((await h.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
      const remote = await h.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9' });
      expect(remote.statusCode).toBe(403);
      expect(remote.body).not.toMatch(/http_request_duration/);
    } finally {
      await h.close();
    }
  });

  it('with METRICS_TOKEN needs the bearer token, from anywhere', async () => {
    const h = await createHarness({ env: { METRICS_TOKEN: 'metrics-token-0123456789' } });
    try {
      expect((await h.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
      const wrong = await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer nope' } });
      expect(wrong.statusCode).toBe(401);
      const ok = await h.app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.9',
        headers: { authorization: 'Bearer metrics-token-0123456789' },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toMatch(/http_request_duration/);
    } finally {
      await h.close();
    }
  });
});

describe('REQUIRE_HTTPS (on by default in production)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { SERVICE_ENVIRONMENT: 'production', TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(() => h.close());

  it('refuses plain HTTP before reading the key, accepts what the trusted proxy says came over HTTPS', async () => {
    const key = await h.key('submission');
    const plain = await h.app.inject({ method: 'GET', url: `${SUB}/categories`, headers: { 'x-service-api-key': key } });
    expect(plain.statusCode).toBe(403);
    expect(plain.json().errors[0].message).toMatch(/HTTPS only/);
    const viaProxy = await h.app.inject({
      method: 'GET',
      url: `${SUB}/categories`,
      headers: { 'x-service-api-key': key, 'x-forwarded-proto': 'https' },
    });
    expect(viaProxy.statusCode).toBe(200);
    // From an address that is not the trusted proxy, the header is not believed.
    const spoofed = await h.app.inject({
      method: 'GET',
      url: `${SUB}/categories`,
      remoteAddress: '203.0.113.9',
      headers: { 'x-service-api-key': key, 'x-forwarded-proto': 'https' },
    });
    expect(spoofed.statusCode).toBe(403);
    expect((await h.app.inject({ method: 'GET', url: '/health' })).statusCode).not.toBe(403);
  });
});

describe('request logs', () => {
  it('never hold a redemption code or barcode from a URL', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const config = loadConfig(process.env);
    const services = await connectServices(config, resolveEndpoints(config), pino({ level: 'info' }, sink));
    const app = await buildApp(services);
    try {
      const { key } = await createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
      for (const ref of ['ABCD-EFGH-JKLM-NPQR', 'ABCDEFGHJKLMNPQR']) {
        await app.inject({
          method: 'GET',
          url: `${SUB}/advertisers/adv_1/vouchers/${ref}`,
          headers: { 'x-service-api-key': key },
        });
      }
      await new Promise((r) => setImmediate(r));
      const logged = lines.join('');
      expect(logged).toMatch(/vouchers\/\[redacted\]/);
      expect(logged).not.toMatch(/ABCD-EFGH|ABCDEFGHJKLM/);
    } finally {
      await app.close();
      await services.close();
    }
  });
});
