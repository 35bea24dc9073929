import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness, harnessWithKeys } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * Issue 19, part 8: the headers of voucher pages and JSON/XML answers, the bound on how long a
 * request may take to arrive, and the error envelope on the refusals Node writes itself.
 */

describe('response headers', () => {
  let h: Harness;
  let dist: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => ({ h, dist, sub } = await harnessWithKeys()));
  afterAll(() => h.close());

  it('voucher pages, the print page and the customer page, are never cached, sniffed or framed, and run no script', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 5 });
    const order = await h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': dist },
      payload: { order: { order_number: `hdr-${Date.now()}`, customer_name: 'Ada', items: [{ offer_id: offerId, quantity: 1 }] } },
    });
    expect(order.statusCode).toBe(200);
    const [voucher] = order.json().order.vouchers as Array<{ id: string; redemption_code: string; print_url: string }>;
    const print = await h.app.inject({
      method: 'GET',
      url: `${DIST}/vouchers/${voucher.id}/print`,
      headers: { 'x-service-api-key': dist },
    });
    const page = await h.app.inject({ method: 'GET', url: new URL(voucher.print_url).pathname });
    for (const res of [print, page]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(voucher.redemption_code);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toMatch(/no-store/);
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toMatch(/default-src 'none'/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).not.toMatch(/script-src|unsafe-eval/);
    }
  });

  it('every JSON and XML answer, refusals included, carries nosniff', async () => {
    const headers = { 'x-service-api-key': sub.key };
    const answers = await Promise.all([
      h.app.inject({ method: 'GET', url: `${SUB}/categories`, headers }),
      h.app.inject({ method: 'GET', url: `${SUB}/categories.xml`, headers }),
      h.app.inject({ method: 'GET', url: `${SUB}/offers/ofr_unknown`, headers }),
      h.app.inject({ method: 'GET', url: `${SUB}/categories` }),
      h.app.inject({ method: 'GET', url: '/no/such/route' }),
      h.app.inject({
        method: 'POST',
        url: `${SUB}/offers`,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '{',
      }),
      h.app.inject({ method: 'GET', url: '/health' }),
    ]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 404, 401, 404, 400, 200]);
    for (const res of answers) {
      expect(res.headers['content-type']).toMatch(/^application\/(json|xml)/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

/** What came back on a raw socket: the status, headers and body of the one answer, and when the server closed. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  closedAfterMs: number;
}

/**
 * Opens a raw connection, writes `head`, then `drip` one byte at a time every `dripMs` until the
 * server closes the connection; resolves with what the server sent.
 */
function rawRequest(port: number, head: string, drip = '', dripMs = 500): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let dripping: NodeJS.Timeout | undefined;
    socket.on('data', (c) => (received += c.toString('latin1')));
    socket.on('error', (err) => (/ECONNRESET|EPIPE/.test(String(err)) ? undefined : reject(err)));
    socket.on('close', () => {
      clearInterval(dripping);
      const [top, ...rest] = received.split('\r\n\r\n');
      const [statusLine, ...lines] = top.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), closedAfterMs: Date.now() - started });
    });
    socket.write(head);
    let i = 0;
    if (drip)
      dripping = setInterval(() => {
        if (i < drip.length && socket.writable) socket.write(drip[i++]);
      }, dripMs);
  });
}

/** The documented error envelope (docs/errors.md), with the code asked for. */
function expectEnvelope(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  const body = JSON.parse(answer.body);
  expect(body).toEqual({ status: 'ERROR', errors: [{ code, message: expect.any(String) }], request_id: expect.stringMatching(/^req_/) });
  expect(answer.headers['x-request-id']).toBe(body.request_id);
}

describe('over a real socket', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await createHarness({ env: { REQUEST_TIMEOUT_SECONDS: '2' } });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  afterAll(() => h.close());

  it('a body dripped byte by byte is cut off at REQUEST_TIMEOUT_SECONDS with 408, not held for minutes', async () => {
    const key = await h.key('submission');
    const body = JSON.stringify({ offer: { title: 'x'.repeat(400) } });
    // One byte every 500 ms: the whole body would take more than three minutes.
    const answer = await rawRequest(
      port,
      `POST ${SUB}/offers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-SERVICE-API-KEY: ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    );
    expectEnvelope(answer, 408, 'request_timeout');
    // 2 s, plus at most one check interval (500 ms here) and scheduling: far from minutes.
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(1900);
    expect(answer.closedAfterMs).toBeLessThan(10_000);
  });

  it('headers past Node’s limit answer 431 in the documented error body', async () => {
    const answer = await rawRequest(port, `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectEnvelope(answer, 431, 'headers_too_large');
  });

  it('a request Node cannot parse answers 400 malformed_request in the documented error body', async () => {
    expectEnvelope(await rawRequest(port, 'NOT A REQUEST LINE\r\n\r\n'), 400, 'malformed_request');
    expectEnvelope(await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n'), 400, 'malformed_request');
  });

  it('a well-formed request on the same server is answered as usual', async () => {
    const answer = await rawRequest(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});
