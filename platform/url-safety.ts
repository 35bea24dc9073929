import dns from 'node:dns';
import net from 'node:net';
import type { ServiceEnvironment } from '../domain/environment';

/** A callback URL this deployment will not call; the message says why, for the operator. */
export class UnsafeCallbackUrlError extends Error {}

/**
 * Addresses a production deployment never calls: loopback, private, link-local, carrier-grade
 * NAT, unspecified, multicast and reserved ranges, in IPv4 and IPv6 (an IPv6 address that carries
 * an IPv4 one, in any of the forms embeddedIpv4 knows, is checked as that IPv4 address too). Calling these would let a client probe our own network (SSRF).
 */
const FORBIDDEN = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const) {
  FORBIDDEN.addSubnet(net6, bits, 'ipv6');
}

/** The 16 bytes of a valid IPv6 address (with `::` and a trailing dotted quad expanded). */
function ipv6Bytes(address: string): number[] {
  const withQuad = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a: string, b: string, c: string, d: string) =>
    [((+a << 8) | +b).toString(16), ((+c << 8) | +d).toString(16)].join(':'),
  );
  const [head, tail] = withQuad.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const words = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t].map((w) => parseInt(w, 16));
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

const startsWith = (bytes: number[], prefix: number[]) => prefix.every((b, i) => bytes[i] === b);
const quad = (b: number[]) => b.join('.');

/**
 * The IPv4 address an IPv6 address carries in a form that reaches it: IPv4-mapped (`::ffff:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`), SIIT (`::ffff:0:a.b.c.d`), 6to4 (`2002:AABB:CCDD::`), NAT64
 * (`64:ff9b::/96`, `64:ff9b:1::/48`) and Teredo's server. `[::127.0.0.1]` is 127.0.0.1 by another name.
 */
function embeddedIpv4(address: string): string[] {
  const b = ipv6Bytes(address);
  const zeros = (n: number) => Array<number>(n).fill(0);
  const found: string[] = [];
  if (startsWith(b, [...zeros(10), 0xff, 0xff]) || startsWith(b, zeros(12))) found.push(quad(b.slice(12)));
  if (startsWith(b, [...zeros(8), 0xff, 0xff, 0, 0])) found.push(quad(b.slice(12)));
  if (startsWith(b, [0x20, 0x02])) found.push(quad(b.slice(2, 6)));
  if (startsWith(b, [0, 0x64, 0xff, 0x9b])) found.push(quad(b.slice(12)));
  if (startsWith(b, [0x20, 0x01, 0, 0])) found.push(quad(b.slice(4, 8)), quad(b.slice(12).map((x) => x ^ 0xff)));
  return found;
}

/** True for an address a production callback may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (FORBIDDEN.check(address, 'ipv6')) return true;
  // The unspecified address `::` carries 0.0.0.0 and is refused above; so is every embedded private IPv4.
  return embeddedIpv4(address).some((v4) => FORBIDDEN.check(v4, 'ipv4'));
}

/** Parses and checks the URL's form: http(s), no credentials, and HTTPS in production. */
export function parseCallbackUrl(raw: string, environment: ServiceEnvironment): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeCallbackUrlError(`not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UnsafeCallbackUrlError(`callback URLs must be http(s), not ${url.protocol}`);
  if (url.username || url.password) throw new UnsafeCallbackUrlError('callback URLs may not carry credentials');
  if (environment === 'production' && url.protocol !== 'https:') {
    throw new UnsafeCallbackUrlError(`production callback URLs must use HTTPS (plain HTTP is not supported in production): ${raw}`);
  }
  return url;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function refuseAddress(url: URL, address: string): never {
  throw new UnsafeCallbackUrlError(
    `callback URL ${url.origin} resolves to ${address}, a loopback, private, link-local or reserved address, which production does not call`,
  );
}

/**
 * The full check done by `callbacks set`: the form, then (in production) every address the host
 * resolves to. The sandbox allows any host, e.g. http://127.0.0.1 for local testing.
 */
export async function checkCallbackUrl(raw: string, environment: ServiceEnvironment): Promise<URL> {
  const url = parseCallbackUrl(raw, environment);
  if (environment !== 'production') return url;
  const host = hostOf(url);
  if (net.isIP(host)) {
    if (isForbiddenAddress(host)) refuseAddress(url, host);
    return url;
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch (err) {
    throw new UnsafeCallbackUrlError(`cannot resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  for (const a of addresses) if (isForbiddenAddress(a.address)) refuseAddress(url, a.address);
  return url;
}

/**
 * A `lookup` for http(s).request that refuses forbidden addresses at connection time, so the
 * address checked is the address connected to (a DNS answer changed after `callbacks set`, i.e.
 * DNS rebinding, is caught here). Only used in production.
 */
export const guardedLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as unknown as dns.LookupAddress[];
    const bad = list.find((a) => isForbiddenAddress(a.address));
    if (bad || list.length === 0) {
      const e = new UnsafeCallbackUrlError(`${hostname} resolves to ${bad?.address ?? 'nothing'}, which production does not call`);
      return callback(e as NodeJS.ErrnoException, '', 0);
    }
    if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};
