import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceDeps } from '../../../services/deps';
import { staffOfSession, type Staff } from '../../../services/merchant-counter';
import { MERCHANT_PATH } from '../../../services/redemption-staff';

/*
 * The counter's session: a random token in an HttpOnly, SameSite=Strict cookie scoped to /merchant
 * (Secure over HTTPS); the database keeps only its SHA-256 (services/merchant-counter.ts). Every
 * form of a signed-in page also carries a CSRF token derived from the session (an HMAC of it), on
 * top of the Origin check the whole scope makes (index.ts, as the review console).
 */

const COOKIE = 'merchant_session';

/** The value of one cookie of the request. */
function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      // A value that is not valid percent-encoding (`%`) is no session: the sign-in page, not a URIError's 500.
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

const attributes = (request: FastifyRequest) =>
  `Path=${MERCHANT_PATH}; HttpOnly; SameSite=Strict${request.protocol === 'https' ? '; Secure' : ''}`;

export function setSessionCookie(reply: FastifyReply, request: FastifyRequest, token: string, expiresAt: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  reply.header('set-cookie', `${COOKIE}=${token}; Max-Age=${maxAge}; ${attributes(request)}`);
}

export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest): void {
  reply.header('set-cookie', `${COOKIE}=; Max-Age=0; ${attributes(request)}`);
}

export const sessionToken = (request: FastifyRequest) => cookie(request, COOKIE);

/** The CSRF token of a session: bound to it, so a token from another session (or none) is refused. */
export const csrfTokenOf = (token: string) => crypto.createHash('sha256').update(`merchant-csrf:${token}`).digest('base64url');

/** Whether the form's CSRF token is the session's (compared in constant time). */
export function csrfMatches(token: string, sent: unknown): boolean {
  const expected = Buffer.from(csrfTokenOf(token));
  const given = Buffer.from(typeof sent === 'string' ? sent : '');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** The signed-in staff member of the request, with the session token; undefined when not signed in. */
export async function signedInStaff(deps: ServiceDeps, request: FastifyRequest): Promise<{ staff: Staff; token: string } | undefined> {
  const token = sessionToken(request);
  if (!token || token.length > 100) return undefined;
  const staff = await staffOfSession(deps, token);
  return staff && { staff, token };
}
