import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postOnce } from '../../activities/callbacks/http';
import { checkCallbackUrl, isForbiddenAddress, UnsafeCallbackUrlError } from '../../platform/url-safety';
import { distributionEventType } from '../../schemas/callback-event';

describe('callback URL safety', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ])('%s is forbidden in production', (a) => expect(isForbiddenAddress(a)).toBe(true));
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('%s is allowed', (a) => expect(isForbiddenAddress(a)).toBe(false));

  // A private IPv4 address spelt as IPv6 reaches the same host: each form is checked as the IPv4 it carries.
  it.each([
    ['IPv4-compatible', '::127.0.0.1'],
    ['IPv4-compatible, hex', '::7f00:1'],
    ['IPv4-mapped, hex', '::ffff:7f00:1'],
    ['SIIT', '::ffff:0:10.0.0.1'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['6to4 of a private address', '2002:c0a8:101::1'],
    ['6to4 of the metadata service', '2002:a9fe:a9fe::'],
    ['NAT64 local-use', '64:ff9b:1::a00:1'],
    ['NAT64 well-known', '64:ff9b::127.0.0.1'],
  ])('%s form %s is forbidden in production', (_form, a) => expect(isForbiddenAddress(a)).toBe(true));
  it.each(['::ffff:8.8.8.8', '2002:808:808::1'])('%s (a public IPv4 inside) is allowed', (a) => expect(isForbiddenAddress(a)).toBe(false));
  it('a URL with such a host is refused in production', async () => {
    await expect(checkCallbackUrl('https://[::127.0.0.1]/cb', 'production')).rejects.toThrow(/resolves to ::7f00:1, a loopback, private/);
    await expect(checkCallbackUrl('https://[2002:7f00:1::]/cb', 'production')).rejects.toThrow(UnsafeCallbackUrlError);
  });

  it('production refuses plain HTTP and private targets; the sandbox allows local http', async () => {
    await expect(checkCallbackUrl('http://example.com/cb', 'production')).rejects.toThrow(/must use HTTPS/);
    await expect(checkCallbackUrl('https://10.0.0.1/cb', 'production')).rejects.toThrow(UnsafeCallbackUrlError);
    await expect(checkCallbackUrl('https://user:pw@example.com/cb', 'production')).rejects.toThrow(/credentials/);
    await expect(checkCallbackUrl('ftp://example.com/cb', 'sandbox')).rejects.toThrow(/http\(s\)/);
    await expect(checkCallbackUrl('http://127.0.0.1:8080/cb', 'sandbox')).resolves.toBeInstanceOf(URL);
  });

  it('checks again at delivery time, on the address actually connected to (DNS rebinding)', async () => {
    // localhost passes the form check (HTTPS) but resolves to loopback when the attempt connects.
    const res = await postOnce('https://localhost:9/cb', '{}', {}, { timeoutMs: 2000, environment: 'production' });
    expect(res.statusCode).toBeNull();
    expect(res.error).toMatch(/localhost resolves to (127\.0\.0\.1|::1), which production does not call/);
    const direct = await postOnce('https://10.0.0.1/cb', '{}', {}, { timeoutMs: 2000, environment: 'production' });
    expect(direct.error).toMatch(/10\.0\.0\.1 is a loopback, private/);
  });

  it('does not follow redirects, and a slow receiver is cut off at the timeout', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/elsewhere' }).end();
        return;
      }
      setTimeout(() => res.end('late'), 5000); // slower than the timeout
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const redirected = await postOnce(`http://127.0.0.1:${port}/redirect`, '{}', {}, { timeoutMs: 2000, environment: 'sandbox' });
      expect(redirected.statusCode).toBe(302);
      const started = Date.now();
      const slow = await postOnce(`http://127.0.0.1:${port}/slow`, '{}', {}, { timeoutMs: 300, environment: 'sandbox' });
      expect(slow).toMatchObject({ statusCode: null, error: 'timed out after 300 ms' });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('who hears what: distribution event kinds', () => {
  const published = { status: 'approved', published_at: new Date() };
  const ev = (type: string, data: Record<string, unknown> = {}) => ({ type, data });
  it.each([
    [ev('offer.status_changed', { old_status: 'pending', new_status: 'approved' }), published, 'offer.published'],
    [
      ev('offer.status_changed', { old_status: 'suspended', new_status: 'resumed' }),
      { ...published, status: 'resumed' },
      'offer.published',
    ],
    [
      ev('offer.status_changed', { old_status: 'approved', new_status: 'suspended' }),
      { ...published, status: 'suspended' },
      'offer.suspended',
    ],
    [
      ev('offer.status_changed', { old_status: 'approved', new_status: 'withdrawn' }),
      { ...published, status: 'withdrawn' },
      'offer.suspended',
    ],
    [
      ev('offer.status_changed', { old_status: 'suspended', new_status: 'cancelled' }),
      { ...published, status: 'cancelled' },
      'offer.closed',
    ],
    [ev('offer.closed', { old_status: 'approved', new_status: 'closed' }), { ...published, status: 'closed' }, 'offer.closed'],
    [ev('offer.stock_changed'), published, 'offer.changed'],
    [ev('offer.sold_out'), published, 'offer.sold_out'],
    [ev('offer.stock_changed'), { ...published, status: 'suspended' }, null],
    [ev('offer.created'), { status: 'pending', published_at: null }, null],
    [ev('offer.status_changed', { old_status: 'pending', new_status: 'rejected' }), { status: 'rejected', published_at: null }, null],
  ])('%j on %j → %s', (event, offer, expected) => {
    expect(distributionEventType(event, offer as never)).toBe(expected);
  });
});
