import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PG_INTEGER_MAX, queryInt, IdParams } from '../../../schemas/common';
import { MAX_PAGE } from '../../../schemas/pagination';
import { OFFER_TYPES } from '../../../schemas/offer';
import type { ServiceDeps } from '../../../services/deps';
import {
  attachmentUnderReview,
  decideWithinDeadline,
  offerUnderReview,
  queueCategories,
  reviewQueue,
  type ReviewVerdict,
} from '../../../services/review';
import type { SignedIn } from './gate';
import { offerPage } from './offer-page';
import { queuePage, WAIT_CHOICES, type WaitChoice } from './queue-page';
import { runningImportsSection } from './imports-section';
import { runningVoucherImports } from '../../../services/voucher-imports';
import { toVoucherImport } from '../../../schemas/voucher-import';
import { html } from './html';
import { categoryReviewTimes, expectedFor, reviewOpened, reviewTimes } from '../../../services/review-times';
import { reviewTimesSection } from './review-times-chart';
import { asPageError, OpsPageError, sendHtml } from './reply';
import type { RouteApp } from '../operation';

/*
 * The console's five routes, each registered by its own function: the queue, one offer, its two
 * decisions, and an attachment. They run behind the gate (gate.ts); errors become pages (reply.ts).
 */

type AttachmentUnderReview = Awaited<ReturnType<typeof attachmentUnderReview>>['row'];

/** What the routes work with: the services' dependencies and who signed in. */
export interface OpsContext {
  deps: ServiceDeps;
  signedIn: SignedIn;
}

const PER_PAGE = 25;

/** A filter left at "any" arrives as an empty field. */
const blankAsUnset = (v: unknown) => (v === '' ? undefined : v);
const ListQuery = z.object({
  page: queryInt(1, MAX_PAGE, 1),
  type: z.preprocess(blankAsUnset, z.enum(OFFER_TYPES).optional()),
  category: z.preprocess(blankAsUnset, queryInt(1, PG_INTEGER_MAX).optional()),
  waiting: z.preprocess(blankAsUnset, z.enum(Object.keys(WAIT_CHOICES) as [WaitChoice, ...WaitChoice[]]).optional()),
});
const OfferQuery = z.object({ sent: z.enum(['approve', 'reject']).optional() });
const RejectBody = z.object({ reason: z.string().optional() });

/** GET /ops/: the offers waiting for review, filtered by type, category and time waited, a page at a time. */
export function queueRoute(app: RouteApp, { deps, signedIn }: OpsContext): void {
  app.get('/', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { page: pageNo, type, category, waiting } = request.query;
    const filter = { type, categoryId: category, minWaitSeconds: waiting ? WAIT_CHOICES[waiting] : undefined };
    const [queue, categories, imports, times] = await Promise.all([
      reviewQueue(deps, { page: pageNo, per_page: PER_PAGE }, filter),
      queueCategories(deps),
      runningVoucherImports(deps, 20),
      reviewTimes(deps),
    ]);
    const now = new Date();
    const rows = queue.rows.map((r) => ({ ...r, expectedAt: expectedFor(times, r.categoryId, r.submitted_at, now) }));
    const choices = { types: OFFER_TYPES, categories };
    const queued = queuePage({ rows, total: queue.total }, pageNo, PER_PAGE, { type, category, waiting }, choices, now);
    const chart = reviewTimesSection(await categoryReviewTimes(deps, times));
    const body = html`${queued}${chart}${runningImportsSection(imports.map((i) => toVoucherImport(i, '')))}`;
    return sendHtml(reply, 200, 'Waiting for review', body, signedIn(request));
  });
}

/** GET /ops/offers/:id: one offer with everything a reviewer decides on (`?sent=` after a decision). */
export function offerRoute(app: RouteApp, { deps, signedIn }: OpsContext): void {
  app.get('/offers/:id', { schema: { hide: true, params: IdParams, querystring: OfferQuery } }, async (request, reply) => {
    const review = await offerUnderReview(deps, request.params.id).catch((err: unknown) => {
      throw asPageError(err);
    });
    // The first opening of a pending review in its round is its start, for the advertiser too.
    if (review.offer.status === 'pending') await reviewOpened(deps, review.offer.id, signedIn(request) ?? 'operator');
    return sendHtml(reply, 200, review.offer.title, offerPage(review, request.query.sent), signedIn(request));
  });
}

/**
 * Sends the verdict to the offer's review workflow, waits for the status to change within the one
 * answer deadline (WORKFLOW_ANSWER_TIMEOUT_SECONDS), and redirects to the offer's page, which says
 * whether the workflow has recorded it yet (a sent decision always will be). A refused decision,
 * e.g. on an offer no longer pending, is a 409 page; one Temporal did not take in time a 503 page.
 */
async function decide(
  { deps, signedIn }: OpsContext,
  request: FastifyRequest,
  reply: FastifyReply,
  offerId: string,
  verdict: ReviewVerdict,
  reason?: string,
) {
  const reviewer = signedIn(request) ?? 'operator';
  const { recorded } = await decideWithinDeadline(deps, offerId, verdict, { reason, reviewer }).catch((err: unknown) => {
    throw asPageError(err, (f) =>
      f.code === 'backend_unavailable'
        ? new OpsPageError(503, 'Not confirmed', f.message)
        : new OpsPageError(409, 'Not decided', f.message),
    );
  });
  request.log.info({ offer_id: offerId, decision: verdict, recorded }, 'review console: decision sent');
  return reply.redirect(`/ops/offers/${encodeURIComponent(offerId)}?sent=${verdict}`, 303);
}

/** POST /ops/offers/:id/approve. */
export function approveRoute(app: RouteApp, ctx: OpsContext): void {
  app.post('/offers/:id/approve', { schema: { hide: true, params: IdParams } }, (request, reply) =>
    decide(ctx, request, reply, request.params.id, 'approve'),
  );
}

/** POST /ops/offers/:id/reject: a reason (at most 2000 characters) is required. */
export function rejectRoute(app: RouteApp, ctx: OpsContext): void {
  app.post('/offers/:id/reject', { schema: { hide: true, params: IdParams, body: RejectBody.optional() } }, (request, reply) => {
    const reason = request.body?.reason?.trim() ?? '';
    if (!reason) throw new OpsPageError(400, 'Reason required', 'A rejection needs a reason: go back and write one.');
    if (reason.length > 2000) throw new OpsPageError(400, 'Reason too long', 'The reason may be at most 2000 characters.');
    return decide(ctx, request, reply, request.params.id, 'reject', reason);
  });
}

/** Images (sniffed at upload, never the client's claim) show inline; everything else downloads. */
function contentDisposition(row: Pick<AttachmentUnderReview, 'content_type' | 'file_name'>): string {
  const inline = row.content_type === 'image/png' || row.content_type === 'image/jpeg';
  const ascii = row.file_name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(row.file_name)}`;
}

/** GET /ops/attachments/:id: an attachment of an offer under review, in a sandbox of its own. */
export function attachmentRoute(app: RouteApp, { deps }: OpsContext): void {
  app.get('/attachments/:id', { schema: { hide: true, params: IdParams } }, async (request, reply) => {
    const { row, body } = await attachmentUnderReview(deps, request.params.id).catch((err: unknown) => {
      throw asPageError(err);
    });
    return reply
      .type(row.content_type)
      .header('content-length', String(row.size_bytes))
      .header('content-disposition', contentDisposition(row))
      .header('content-security-policy', "default-src 'none'; sandbox")
      .send(body);
  });
}
