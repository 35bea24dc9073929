import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Failure } from '../../../domain/failures';
import { SignupCreate, toSignup } from '../../../schemas/developer-signup';
import { DEMO_KEY_MAY, publishedDemoKey } from '../../../services/demo';
import { signUpDeveloper } from '../../../services/developer-signups';
import type { ServiceDeps } from '../../../services/deps';
import { ApiError, fromFailure } from '../../errors';
import { acceptHtmlForms, withSecurityHeaders } from '../../plugins/html-forms';
import { crossSiteRefusal } from '../ops/auth';
import { sendHtmlPage } from '../ops/html';
import type { SignupLimit } from './signup-limit';
import { type DemoKeyShown, signupDonePage, signupFormPage, signupRefusedPage } from './signup-html';
import { signupBaseUrls } from './signups';
import { interfaceBaseUrl } from '../../urls';
import { INTERFACE_PREFIX } from '../../../domain/environment';
import type { RoutePlugin } from '../operation';

/** The sign-up page: GET shows the form, the form posts back here and the answer shows the keys. */
export const SIGNUP_PAGE_PATH = '/developer/signup';

const HEADERS = {
  // No script at all; inline styles only; the form posts only to this site; never framed.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  // The answer holds the keys: never cached.
  'cache-control': 'no-store',
  // Nothing is sent to other sites as a referrer, but this site's own form post carries its real
  // Origin, which the cross-site check needs: with `no-referrer` browsers send `Origin: null`
  // (Fetch standard, "serializing a request origin") and the site's own form was refused. The keys
  // are in the page's body, never in its address, so the same-origin Referer carries no secret.
  'referrer-policy': 'same-origin',
};

/** What the form sends: strings (an untouched field arrives empty), checked with the API's own schema after. */
const FormBody = z.object({ email: z.string().max(1000).optional(), name: z.string().max(1000).optional() });

/** Refusals as pages: the rate limits (429, Retry-After already set), a bad body, anything else. */
function refusalAsPage(err: Error & { statusCode?: number }, request: FastifyRequest, reply: FastifyReply) {
  const refusal = err instanceof Failure ? fromFailure(err) : err instanceof ApiError ? err : undefined;
  const status = refusal?.statusCode ?? (err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500);
  if (status >= 500) request.log.error({ err }, 'sign-up page: request failed');
  const [title, text] =
    status === 429
      ? ['Too many requests', `${err.message}.`]
      : status >= 500
        ? ['Something went wrong', `Please try again later (request ${request.id}).`]
        : ['Not signed up', err.message];
  return sendHtmlPage(reply, status, signupRefusedPage(title, text, SIGNUP_PAGE_PATH));
}

/** A page on another site must not sign its visitors up (and spend their address's budget). */
async function sameSiteOnly(request: FastifyRequest) {
  const refused = crossSiteRefusal(request);
  if (refused) throw new ApiError(403, 'forbidden', `sign-up is accepted from this site's own form only (${refused})`);
}

/** The shared demonstration key the sandbox shows beside the form (none in production or while revoked). */
export async function demoKeyShown(deps: ServiceDeps, request: FastifyRequest) {
  const key = await publishedDemoKey(deps);
  return key ? { key, baseUrl: interfaceBaseUrl(request, INTERFACE_PREFIX.distribution), may: DEMO_KEY_MAY } : undefined;
}

/** What is wrong with the form's fields, one line each, as the form shows it. */
const fieldErrors = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.join('.') === 'email' ? 'Email address' : 'Name'}: ${i.message}`);

/** The page and its form post, for people with a browser; the API is `POST /developer/beta/signups`. */
export const signupPageRoutes: RoutePlugin<{ limit: SignupLimit }> = async (app, { deps, limit }) => {
  const perHour = deps.config.DEVELOPER_SIGNUPS_PER_HOUR;
  const form = (o: { email?: string; name?: string; errors?: string[]; demo?: DemoKeyShown } = {}) =>
    signupFormPage({ action: SIGNUP_PAGE_PATH, perHour, ...o });

  acceptHtmlForms(app);
  withSecurityHeaders(app, HEADERS);

  app.setErrorHandler(refusalAsPage);

  app.get(SIGNUP_PAGE_PATH, { schema: { hide: true } }, async (request, reply) =>
    // The demonstration key with the fresh form only: a refused post shows the form and why.
    sendHtmlPage(reply, 200, form({ demo: await demoKeyShown(deps, request) })),
  );

  app.post(
    SIGNUP_PAGE_PATH,
    {
      schema: { hide: true, body: FormBody },
      onRequest: [sameSiteOnly, limit],
    },
    async (request, reply) => {
      const typed = { email: request.body.email ?? '', name: request.body.name?.trim() || undefined };
      const parsed = SignupCreate.safeParse(typed);
      if (!parsed.success) return sendHtmlPage(reply, 422, form({ ...typed, errors: fieldErrors(parsed.error) }));
      try {
        const { signup, keys } = await signUpDeveloper(deps, parsed.data, request.ip);
        request.log.info({ signup_id: signup.id }, 'developer signed up (page)');
        return sendHtmlPage(reply, 200, signupDonePage(toSignup(signup, keys, signupBaseUrls(request))));
      } catch (err) {
        if (!(err instanceof Failure && err.code === 'duplicate')) throw err;
        return sendHtmlPage(reply, 409, form({ ...typed, errors: [`${typed.email.trim()}: ${err.message}.`] }));
      }
    },
  );
};
