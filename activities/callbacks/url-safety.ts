import dns from 'node:dns';
import net from 'node:net';
import type { ServiceEnvironment } from '../../domain/environment';

/** A callback URL this deployment will not call; the message says why, for the operator. */
export class UnsafeCallbackUrlError extends Error {}

/**
 * Addresses a production deployment never calls: loopback, private, link-local, carrier-grade
 * NAT, unspecified, multicast and reserved ranges, in IPv4 and IPv6 (IPv4-mapped IPv6 is checked
 * as the IPv4 address it carries). Calling these would let a client probe our own network (SSRF).
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

/** True for an address a production callback may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isForbiddenAddress(mapped[1]);
  const family = net.isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
