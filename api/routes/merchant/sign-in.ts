import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { RouteApp } from '../operation';
import { z } from 'zod';
import type { ServiceDeps } from '../../../services/deps';
import { signIn, signOut } from '../../../services/merchant-counter';
import { MERCHANT_PATH } from '../../../services/redemption-staff';
import { sendHtmlPage } from '../ops/html';
import { signInPage } from './pages';
import { clearSessionCookie, csrfMatches, sessionToken, setSessionCookie } from './session';

/*
 * Signing in and out. A wrong code counts against the client's address (its /64 for IPv6) in the
 * rate limit's Postgres counts, shared by every API process: past MAX_FAILURES in the window the
 * address gets 429 until the window ends, the right code included. Every attempt does the same
 * work (hash the code, one UPDATE by the hash's unique index), so a right and a wrong code, or a
 * used and an unknown one, take the same time; nothing compares secrets byte by byte.
 */

const MAX_FAILURES = 10;
const WINDOW_MS = 15 * 60_000;
const keyOf = (request: FastifyRequest) => `merchant-sign-in:${normalizeIP(request.ip, 64)}`;

/** Seconds the address must wait, or 0. The counts failing open, as the API's rate limit does. */
async function blockedFor(deps: ServiceDeps, request: FastifyRequest): Promise<number> {
  const seen = await deps.rateLimits.peek(keyOf(request), WINDOW_MS).catch(() => ({ hits: 0, msLeft: 0 }));
  return seen.hits >= MAX_FAILURES ? Math.max(1, Math.ceil(seen.msLeft / 1000)) : 0;
}

const CodeParams = z.object({ code: z.string().max(40) });
const SignInBody = z.object({ code: z.string().max(100).default(''), next: z.string().max(400).optional() });

/** Where to go after signing in: `next` when it is one of the counter's voucher pages on this origin, else the start page. */
function landing(next: string | undefined): string {
  if (!next) return MERCHANT_PATH;
  let url: URL;
  try {
    url = new URL(next, 'http://counter.invalid');
  } catch {
    return MERCHANT_PATH;
  }
  return url.origin === 'http://counter.invalid' && url.pathname === `${MERCHANT_PATH}/vouchers` && next.startsWith(`${MERCHANT_PATH}/`)
    ? `${url.pathname}${url.search}`
    : MERCHANT_PATH;
}

export function signInRoutes(app: RouteApp, deps: ServiceDeps): void {
  // A sign-in link only fills the form: a link preview or prefetch must not use the one-time code up.
  app.get(`${MERCHANT_PATH}/sign-in/:code`, { schema: { params: CodeParams, hide: true } }, (request, reply) =>
    sendHtmlPage(reply, 200, signInPage({ code: request.params.code })),
  );

  app.post(`${MERCHANT_PATH}/sign-in`, { schema: { hide: true } }, async (request, reply) => {
    const wait = await blockedFor(deps, request);
    if (wait > 0)
      return sendHtmlPage(
        reply.header('retry-after', String(wait)),
        429,
        signInPage({ error: `Too many wrong codes from this network: try again in ${Math.ceil(wait / 60)} minutes.` }),
      );
    const parsed = SignInBody.safeParse(request.body ?? {});
    const code = parsed.success ? parsed.data.code : '';
    const next = parsed.success ? parsed.data.next : undefined;
    const session = code ? await signIn(deps, code) : undefined;
    if (!session) {
      await deps.rateLimits.hit(keyOf(request), WINDOW_MS).catch(() => undefined);
      request.log.warn('merchant counter: wrong sign-in code');
      const error = 'This code does not work (used, expired or revoked): ask for a new one.';
      return sendHtmlPage(reply, 401, signInPage({ error, next: next && landing(next) }));
    }
    setSessionCookie(reply, request, session.token, session.expiresAt);
    return reply.redirect(landing(next), 303);
  });

  app.post(`${MERCHANT_PATH}/sign-out`, { schema: { hide: true } }, async (request, reply) => {
    const token = sessionToken(request);
    if (token && csrfMatches(token, (request.body as Record<string, unknown> | undefined)?.csrf)) await signOut(deps, token);
    clearSessionCookie(reply, request);
    return sendHtmlPage(reply, 200, signInPage({ notice: 'You are signed out. Ask for a new sign-in code to sign in again.' }));
  });
}
