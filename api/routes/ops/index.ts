import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Failure } from '../../../domain/failures';
import { IdParam } from '../../../schemas/common';
import type { ServiceDeps } from '../../../services/deps';
import {
  attachmentUnderReview,
  offerUnderReview,
  queueCategories,
  reviewQueue,
  sendReviewDecision,
  waitForStatusChange,
  type ReviewVerdict,
} from '../../../services/review';
import { Operators } from '../../../services/operators';
import { basicCredentials, crossSiteRefusal, FailedLoginLimiter } from './auth';
import { page, type SafeHtml } from './html';
import {
  closedPage,
  crossSiteRefusedPage,
  errorPage,
  notFoundPage,
  refusalPage,
  signInPage,
  tooManyAttemptsPage,
  type MessagePage,
} from './message-pages';
import { offerPage } from './offer-page';
import { queuePage, WAIT_CHOICES, type WaitChoice } from './queue-page';
import { OFFER_TYPES } from '../../../schemas/offer';

export const OPS_PREFIX = '/ops';
const PER_PAGE = 25;
/** How long a decision waits for the workflow to record the new status before redirecting anyway. */
const DECISION_WAIT_MS = 5000;
const REALM = 'Basic realm="offer review console", charset="UTF-8"';

const SECURITY_HEADERS = {
  // No script runs on these pages, whatever an offer contains; inline styles only; no framing.
  'content-security-policy':
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** A refusal shown as its own page, with its status. */
class OpsPageError extends Error {
  constructor(
    readonly statusCode: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** A service's `not_found` refusal as the console's 404 page; `otherwise` maps the rest (default: rethrown). */
function asPageError(err: unknown, otherwise?: (f: Failure) => OpsPageError): unknown {
  if (!(err instanceof Failure)) return err;
  if (err.code === 'not_found') return new OpsPageError(404, 'Not found', err.message);
  return otherwise ? otherwise(err) : err;
}

const IdParams = z.object({ id: IdParam });
/** A filter left at "any" arrives as an empty field. */
const blankAsUnset = (v: unknown) => (v === '' ? undefined : v);
const ListQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  type: z.preprocess(blankAsUnset, z.enum(OFFER_TYPES).optional()),
  category: z.preprocess(
    blankAsUnset,
    z.coerce
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1)
      .optional(),
  ),
  waiting: z.preprocess(blankAsUnset, z.enum(Object.keys(WAIT_CHOICES) as [WaitChoice, ...WaitChoice[]]).optional()),
});
const RejectBody = z.object({ reason: z.string().optional() });

const sendHtml = (reply: FastifyReply, status: number, title: string, body: SafeHtml, operator?: string) =>
  reply
    .status(status)
    .type('text/html; charset=utf-8')
    .send(page(title, body, operator));
const sendPage = (reply: FastifyReply, status: number, p: MessagePage) => sendHtml(reply, status, p.title, p.body);

/**
 * The review console under /ops: server-rendered pages for operators, behind HTTP Basic auth with
 * the credential from configuration (closed with 503 when none is set). docs/ops-console.md.
 */
export const opsRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const operators = Operators.fromConfig(deps.config);
  // Who signed in, per request: the reviewer recorded with a decision.
  const signedIn = new WeakMap<FastifyRequest, string>();

  const limiter = new FailedLoginLimiter();

  // HTML forms, in this scope only: the API interfaces keep refusing form bodies.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!operators) return sendPage(reply, 503, closedPage());
    const wait = limiter.blockedFor(request.ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      return sendPage(reply, 429, tooManyAttemptsPage(wait));
    }
    const given = basicCredentials(request.headers.authorization);
    const user = given && (await operators.check(given.username, given.password));
    if (!user) {
      if (request.headers.authorization) {
        limiter.fail(request.ip);
        request.log.warn({ path: request.url }, 'review console: wrong operator credential');
      }
      reply.header('www-authenticate', REALM);
      return sendPage(reply, 401, signInPage());
    }
    signedIn.set(request, user);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const refused = crossSiteRefusal(request);
      if (refused) {
        request.log.warn({ path: request.url, refused }, 'review console: cross-site request refused');
        return sendPage(reply, 403, crossSiteRefusedPage(refused));
      }
    }
  });

  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    if (err instanceof OpsPageError) return sendPage(reply, err.statusCode, refusalPage(err.title, err.message));
    const status = err.validation || (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) ? (err.statusCode ?? 400) : 500;
    if (status >= 500) request.log.error({ err }, 'review console: request failed');
    const text = status >= 500 ? 'Something went wrong; the request id identifies it in the logs.' : err.message;
    return sendPage(reply, status, errorPage(status, text, request.id));
  });

  app.setNotFoundHandler((request, reply) => sendPage(reply, 404, notFoundPage(request.url)));

  const reviewer = (request: FastifyRequest) => signedIn.get(request) ?? 'operator';

  app.get('/', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { page: pageNo, type, category, waiting } = request.query;
    const filter = { type, categoryId: category, minWaitSeconds: waiting ? WAIT_CHOICES[waiting] : undefined };
    const [queue, categories] = await Promise.all([reviewQueue(deps, { page: pageNo, per_page: PER_PAGE }, filter), queueCategories(deps)]);
    const body = queuePage(queue, pageNo, PER_PAGE, { type, category, waiting }, { types: OFFER_TYPES, categories });
    return sendHtml(reply, 200, 'Waiting for review', body, signedIn.get(request));
  });

  app.get(
    '/offers/:id',
    { schema: { hide: true, params: IdParams, querystring: z.object({ sent: z.enum(['approve', 'reject']).optional() }) } },
    async (request, reply) => {
      const review = await offerUnderReview(deps, request.params.id).catch((err: unknown) => {
        throw asPageError(err);
      });
      return sendHtml(reply, 200, review.offer.title, offerPage(review, request.query.sent), signedIn.get(request));
    },
  );

  const decide = async (request: FastifyRequest, reply: FastifyReply, offerId: string, verdict: ReviewVerdict, reason?: string) => {
    const { from } = await sendReviewDecision(deps, offerId, verdict, { reason, reviewer: reviewer(request) }).catch((err: unknown) => {
      throw asPageError(err, (f) => new OpsPageError(409, 'Not decided', f.message));
    });
    request.log.info({ offer_id: offerId, decision: verdict }, 'review console: decision sent');
    await waitForStatusChange(deps, offerId, from, DECISION_WAIT_MS);
    return reply.redirect(`/ops/offers/${encodeURIComponent(offerId)}?sent=${verdict}`, 303);
  };

  app.post('/offers/:id/approve', { schema: { hide: true, params: IdParams } }, (request, reply) =>
    decide(request, reply, request.params.id, 'approve'),
  );

  app.post('/offers/:id/reject', { schema: { hide: true, params: IdParams, body: RejectBody.optional() } }, (request, reply) => {
    const reason = request.body?.reason?.trim() ?? '';
    if (!reason) throw new OpsPageError(400, 'Reason required', 'A rejection needs a reason: go back and write one.');
    if (reason.length > 2000) throw new OpsPageError(400, 'Reason too long', 'The reason may be at most 2000 characters.');
    return decide(request, reply, request.params.id, 'reject', reason);
  });

  app.get('/attachments/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const { row, body } = await attachmentUnderReview(deps, request.params.id).catch((err: unknown) => {
      throw asPageError(err);
    });
    // Images (sniffed at upload, never the client's claim) show inline; everything else downloads.
    const inline = row.content_type === 'image/png' || row.content_type === 'image/jpeg';
    const ascii = row.file_name.replace(/[^\x20-\x7e]|["\\]/g, '_');
    return reply
      .type(row.content_type)
      .header('content-length', String(row.size_bytes))
      .header(
        'content-disposition',
        `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(row.file_name)}`,
      )
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(body);
  });
};
