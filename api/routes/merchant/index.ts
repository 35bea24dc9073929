import { Failure } from '../../../domain/failures';
import { FAILURE_STATUS } from '../../errors';
import { acceptHtmlForms, withSecurityHeaders } from '../../plugins/html-forms';
import { crossSiteRefusal } from '../ops/auth';
import { assetRoutes } from './assets';
import { counterRoutes } from './counter-routes';
import { sendHtmlPage } from '../ops/html';
import { messagePage } from './frame';
import { signInRoutes } from './sign-in';
import type { RoutePlugin } from '../operation';

/*
 * The merchant's counter, /merchant (docs/merchant-counter.md): server-rendered pages for an
 * advertiser's redemption staff, with the review console's mechanisms (api/routes/ops): pages
 * built with the escaping `html` template, form posts parsed in this scope only, every POST
 * refused unless it comes from this origin (Origin/Referer and Sec-Fetch-Site), and headers on
 * every answer. Unlike the console it runs one script, an external file of this origin; the CSP
 * allows that file, WebAssembly (the barcode reader) and the camera, and nothing inline.
 */

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; img-src 'self' data:; media-src 'self' blob:; " +
    "style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'permissions-policy': 'camera=(self), microphone=(), geolocation=()',
  'x-frame-options': 'DENY',
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` with the page's own forms.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
};

export const merchantRoutes: RoutePlugin = async (app, { deps }) => {
  acceptHtmlForms(app);
  withSecurityHeaders(app, SECURITY_HEADERS);
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'POST') return;
    const refused = crossSiteRefusal(request);
    if (!refused) return;
    request.log.warn({ refused }, 'merchant counter: cross-site request refused');
    return sendHtmlPage(reply, 403, messagePage('Refused', 'Forms of the counter are accepted from its own pages only.'));
  });
  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    const status =
      err instanceof Failure
        ? FAILURE_STATUS[err.code]
        : err.validation
          ? 400
          : err.statusCode && err.statusCode < 500
            ? err.statusCode
            : 500;
    if (status >= 500) request.log.error({ err }, 'merchant counter: request failed');
    const text = status >= 500 ? `Something went wrong (request ${request.id}).` : err.message;
    return sendHtmlPage(reply, status, messagePage(status >= 500 ? 'Something went wrong' : 'Not understood', text));
  });
  signInRoutes(app, deps);
  await app.register(async (scope) => counterRoutes(scope, deps));
  assetRoutes(app);
};
