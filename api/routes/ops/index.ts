import { databaseOperators, Operators } from '../../../services/operators';
import { acceptHtmlForms, withSecurityHeaders } from '../../plugins/html-forms';
import { FailedLoginLimiter } from './auth';
import { signInGate } from './gate';
import { answerFailuresAsPages } from './reply';
import { approveRoute, attachmentRoute, offerRoute, queueRoute, rejectRoute } from './review-routes';
import type { RoutePlugin } from '../operation';

export const OPS_PREFIX = '/ops';

const SECURITY_HEADERS = {
  // No script runs on these pages, whatever an offer contains; inline styles only; no framing.
  'content-security-policy':
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

/**
 * The review console under /ops: server-rendered pages for operators, behind HTTP Basic auth with
 * the operators of the operators table (closed with 503 while there are none). docs/ops-console.md.
 * Set up in steps, all in this one scope: forms and headers, the gate, error pages, then the routes.
 */
export const opsRoutes: RoutePlugin = async (app, { deps }) => {
  acceptHtmlForms(app);
  withSecurityHeaders(app, SECURITY_HEADERS);
  const signedIn = signInGate(app, new Operators(databaseOperators(deps.db)), new FailedLoginLimiter());
  answerFailuresAsPages(app);
  const ctx = { deps, signedIn };
  for (const route of [queueRoute, offerRoute, approveRoute, rejectRoute, attachmentRoute]) route(app, ctx);
};
