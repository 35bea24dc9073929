import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactUrl } from '../../../platform/redaction';
import type { Operators } from '../../../services/operators';
import { basicCredentials, crossSiteRefusal, type FailedLoginLimiter } from './auth';
import { closedPage, crossSiteRefusedPage, signInPage, tooManyAttemptsPage, type MessagePage } from './message-pages';
import { sendPage } from './reply';

const REALM = 'Basic realm="offer review console", charset="UTF-8"';

/** Who signed in for a request the gate let through: the name shown on the pages and recorded with a decision. */
export type SignedIn = (request: FastifyRequest) => string | undefined;

/** What the gate answers instead of the console: a status, its page, and the headers that go with it. */
interface Refusal {
  status: number;
  page: MessagePage;
  headers?: Record<string, string>;
}

const refuse = (reply: FastifyReply, r: Refusal) => sendPage(reply.headers(r.headers ?? {}), r.status, r.page);

/** 429 while the client's address is past its wrong sign-ins (auth.ts's FailedLoginLimiter). */
function blockedAddress(limiter: FailedLoginLimiter, request: FastifyRequest): Refusal | undefined {
  const wait = limiter.blockedFor(request.ip);
  if (wait > 0) return { status: 429, page: tooManyAttemptsPage(wait), headers: { 'retry-after': String(wait) } };
}

/** The operator the request's Basic credential names; a wrong credential (not a missing one) counts against the address. */
async function signIn(operators: Operators, limiter: FailedLoginLimiter, request: FastifyRequest): Promise<string | undefined> {
  const given = basicCredentials(request.headers.authorization);
  const user = given && (await operators.check(given.username, given.password));
  if (user) return user;
  if (request.headers.authorization) {
    limiter.fail(request.ip);
    request.log.warn({ path: redactUrl(request.url) }, 'review console: wrong operator credential');
  }
}

/** 403 for a state-changing request that did not come from the console's own pages (the CSRF check). */
function crossSiteWrite(request: FastifyRequest): Refusal | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  const refused = crossSiteRefusal(request);
  if (!refused) return undefined;
  request.log.warn({ path: redactUrl(request.url), refused }, 'review console: cross-site request refused');
  return { status: 403, page: crossSiteRefusedPage(refused) };
}

/**
 * The console's gate, before every request of its scope (the 404 page included): closed (503)
 * while no operator is configured or added (asked on each request, so the first `admin ops users
 * add` opens it), 429 for an address past its wrong sign-ins, 401 asking for the
 * operator's credential, 403 for a cross-site write. Returns who signed in for each request let through.
 */
export function signInGate(scope: FastifyInstance, operators: Operators, limiter: FailedLoginLimiter): SignedIn {
  const signedIn = new WeakMap<FastifyRequest, string>();
  scope.addHook('onRequest', async (request, reply) => {
    if (!(await operators.open())) return refuse(reply, { status: 503, page: closedPage() });
    const blocked = blockedAddress(limiter, request);
    if (blocked) return refuse(reply, blocked);
    const user = await signIn(operators, limiter, request);
    if (!user) return refuse(reply, { status: 401, page: signInPage(), headers: { 'www-authenticate': REALM } });
    signedIn.set(request, user);
    const crossSite = crossSiteWrite(request);
    if (crossSite) return refuse(reply, crossSite);
  });
  return (request) => signedIn.get(request);
}
