import type { FastifyRequest } from 'fastify';

/*
 * The console's two gates. Login is HTTP Basic auth: each operator signs in with their own name and
 * password (services/operators.ts checks them against the operators table). Browsers send Basic
 * credentials on cross-site requests too, so every state-changing request must also prove it came
 * from the console's own pages: its Origin (or, failing that, Referer) must be this origin, and a
 * Sec-Fetch-Site header, when sent, must say same-origin.
 */

/** The user name and password of an `Authorization: Basic …` header, or undefined when it is not one. */
export function basicCredentials(header: string | undefined): { username: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1 || decoded.length > 1000) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The console's own origin as the browser sees it, e.g. `http://127.0.0.1:3000`. */
export function ownOrigin(request: FastifyRequest): string {
  return originOf(`${request.protocol}://${request.host}`) ?? 'invalid:';
}

/** `scheme://host[:port]` of a URL, the default port left out as browsers do; undefined if unparsable. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Why a state-changing request is refused as possibly cross-site, or undefined when it is same-origin. */
export function crossSiteRefusal(request: FastifyRequest): string | undefined {
  const expected = ownOrigin(request);
  const fetchSite = request.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string' && fetchSite !== 'same-origin') return `Sec-Fetch-Site is ${fetchSite}`;
  const origin = request.headers.origin;
  if (typeof origin === 'string') return originOf(origin) === expected ? undefined : `Origin ${origin} is not ${expected}`;
  const referer = request.headers.referer;
  if (typeof referer === 'string') return originOf(referer) === expected ? undefined : `Referer is not from ${expected}`;
  return 'the request has neither Origin nor Referer';
}

/**
 * Wrong-credential attempts per client address, in a fixed window: past `max` failures the address
 * is refused (429) until its window ends. In this process only, like the API's rate limit.
 */
export class FailedLoginLimiter {
  private readonly failures = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly max = 20,
    private readonly windowMs = 5 * 60_000,
  ) {}

  /** Seconds until the address may try again, or 0 when it may try now. */
  blockedFor(address: string, now = Date.now()): number {
    const entry = this.failures.get(address);
    if (!entry || entry.resetAt <= now) return 0;
    return entry.count >= this.max ? Math.ceil((entry.resetAt - now) / 1000) : 0;
  }

  fail(address: string, now = Date.now()): void {
    if (this.failures.size > 10_000) for (const [k, v] of this.failures) if (v.resetAt <= now) this.failures.delete(k);
    const entry = this.failures.get(address);
    if (!entry || entry.resetAt <= now) this.failures.set(address, { count: 1, resetAt: now + this.windowMs });
    else entry.count++;
  }
}
