import { requireSignupOpen } from '../../../services/developer-signups';
import { idempotencyPlugin } from '../../plugins/idempotency';
import { rateLimitPlugin } from '../../plugins/rate-limit';
import { sendHtmlPage } from '../ops/html';
import { signupNotOfferedPage } from './signup-html';
import { SIGNUP_PAGE_PATH, signupPageRoutes } from './signup-page';
import { signupApiRoutes } from './signups';
import { signupLimiter } from './signup-limit';
import type { RoutePlugin } from '../operation';

/*
 * Developer sign-up (spec 5.3; docs/decisions/0031-developer-sign-up.md): in the sandbox, anyone gets a key pair by
 * themselves, through the API (`POST /developer/beta/signups`, its own OpenAPI document) or the
 * page at /developer/signup. No API key. Both share one tight per-address budget on top of the
 * usual per-second limit; off (404) in production and with DEVELOPER_SIGNUP=off.
 */

export const DEVELOPER_PREFIX = '/developer/beta';

/*
 * Sign-up refuses Idempotency-Key rather than scoping it by client address: its answer is a new key
 * pair, shown once, which a stored answer would keep in the database and a replay would hand to
 * anyone behind the same address who sent the same key. It needs none: one sign-up per email.
 */
const SIGNUP_TAKES_NO_KEY =
  'sign-up takes no Idempotency-Key: its answer holds new API keys, which are never stored to be replayed. ' +
  'It is safe to retry without one: a second sign-up of the same email address is 409 duplicate';

/** The sign-up routes, when this deployment offers sign-up (the sandbox, unless DEVELOPER_SIGNUP=off). */
export const developerRoutes: RoutePlugin = async (app, { deps }) => {
  // The usual per-address limit per second (no key here), then the hourly sign-up budget.
  await rateLimitPlugin(app, { perSecond: deps.config.RATE_LIMIT_PER_SECOND, counts: deps.rateLimits });
  const limit = signupLimiter(app, deps.config.DEVELOPER_SIGNUPS_PER_HOUR);
  await idempotencyPlugin(app, { deps, refuse: SIGNUP_TAKES_NO_KEY });
  await app.register(signupApiRoutes, { deps, limit, prefix: DEVELOPER_PREFIX });
  await app.register(signupPageRoutes, { deps, limit });
};

/**
 * Where sign-up is off (production; DEVELOPER_SIGNUP=off): its addresses answer 404 with the
 * reason, in the error envelope for the API and as a page for browsers. No document is served.
 */
export const developerSignupOff: RoutePlugin = async (app, { deps }) => {
  const refuse = () => requireSignupOpen(deps);
  // The page's form body is read (and ignored) so that the answer is this 404, not a 415.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, _body, done) =>
    done(null, {}),
  );
  app.all(`${DEVELOPER_PREFIX}/*`, { schema: { hide: true } }, async () => refuse());
  app.all(SIGNUP_PAGE_PATH, { schema: { hide: true } }, async (_request, reply) =>
    sendHtmlPage(reply, 404, signupNotOfferedPage(deps.config.SERVICE_ENVIRONMENT)),
  );
};
