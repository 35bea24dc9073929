import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OfferRow } from '../../../store/database';
import type { ServiceDeps } from '../../../services/deps';
import { findClientAttachments } from '../../../store/attachments';
import { iso } from '../../../schemas/attachment';
import { toSubmissionOffer } from '../../../store/offers-queries';
import { IdParam } from '../../../schemas/common';
import type { OfferInput, SubmissionOffer } from '../../../schemas/offer';
import { ReviewDecisionError, sendReviewDecision, waitForStatusChange, type ReviewVerdict } from '../../../services/review';
import { checkBasicAuth, crossSiteRefusal, FailedLoginLimiter, type OpsCredential } from './auth';
import { html, page, SafeHtml } from './html';

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

class OpsPageError extends Error {
  constructor(
    readonly statusCode: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

const IdParams = z.object({ id: IdParam });
const ListQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1) });
const RejectBody = z.object({ reason: z.string().optional() });

const sendHtml = (reply: FastifyReply, status: number, title: string, body: SafeHtml) =>
  reply.status(status).type('text/html; charset=utf-8').send(page(title, body));

const fmtTime = (d: Date | string | null | undefined) =>
  d
    ? iso(d)
        .replace('T', ' ')
        .replace(/\.\d+Z$|Z$/, ' UTC')
    : '—';

function fmtMoney(m: { currency_code: string; amount: number } | undefined): string {
  if (!m) return '—';
  try {
    const f = new Intl.NumberFormat('en-US', { style: 'currency', currency: m.currency_code });
    return f.format(m.amount / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${m.amount} ${m.currency_code} (minor units)`;
  }
}

const statusBadge = (status: string) => html`<span class="status status-${status}" data-testid="status">${status}</span>`;

/** A definition list, leaving out empty values. */
function fields(rows: Array<[string, SafeHtml | string | number | null | undefined]>): SafeHtml {
  const shown = rows.filter(([, v]) => v !== undefined && v !== null && v !== '');
  if (shown.length === 0) return html`<p class="muted">none</p>`;
  return html`<dl>
    ${shown.map(
      ([k, v]) =>
        html`<dt>${k}</dt>
          <dd>${v as SafeHtml | string | number}</dd>`,
    )}
  </dl>`;
}

/**
 * The review console under /ops: server-rendered pages for operators, behind HTTP Basic auth with
 * the credential from configuration (closed with 503 when none is set). docs/ops-console.md.
 */
export const opsRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const { db } = deps;
  const credential: OpsCredential | undefined =
    deps.config.OPS_USERNAME && deps.config.OPS_PASSWORD
      ? { username: deps.config.OPS_USERNAME, password: deps.config.OPS_PASSWORD }
      : undefined;

  const limiter = new FailedLoginLimiter();

  // HTML forms, in this scope only: the API interfaces keep refusing form bodies.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!credential) {
      return sendHtml(
        reply,
        503,
        'Console closed',
        html`<h1>Review console closed</h1>
          <p>
            No operator credential is configured. Set <code>OPS_USERNAME</code> and <code>OPS_PASSWORD</code> (at least 12 characters) and
            restart the service.
          </p>`,
      );
    }
    const wait = limiter.blockedFor(request.ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      return sendHtml(
        reply,
        429,
        'Too many attempts',
        html`<h1>Too many wrong sign-ins</h1>
          <p>Try again in ${wait} seconds.</p>`,
      );
    }
    const user = checkBasicAuth(request.headers.authorization, credential);
    if (!user) {
      if (request.headers.authorization) {
        limiter.fail(request.ip);
        request.log.warn({ path: request.url }, 'review console: wrong operator credential');
      }
      reply.header('www-authenticate', REALM);
      return sendHtml(
        reply,
        401,
        'Sign in',
        html`<h1>Sign in required</h1>
          <p>The review console needs the operator credential.</p>`,
      );
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const refused = crossSiteRefusal(request);
      if (refused) {
        request.log.warn({ path: request.url, refused }, 'review console: cross-site request refused');
        return sendHtml(
          reply,
          403,
          'Refused',
          html`<h1>Request refused</h1>
            <p>Decisions are only accepted from the console's own pages (${refused}).</p>`,
        );
      }
    }
  });

  app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, request, reply) => {
    if (err instanceof OpsPageError)
      return sendHtml(
        reply,
        err.statusCode,
        err.title,
        html`<h1>${err.title}</h1>
          <p>${err.message}</p>
          <p><a href="/ops">Back to the queue</a></p>`,
      );
    const status = err.validation || (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) ? (err.statusCode ?? 400) : 500;
    if (status >= 500) request.log.error({ err }, 'review console: request failed');
    const text = status >= 500 ? 'Something went wrong; the request id identifies it in the logs.' : err.message;
    return sendHtml(
      reply,
      status,
      'Error',
      html`<h1>Error ${status}</h1>
        <p>${text}</p>
        <p class="muted">request ${request.id}</p>
        <p><a href="/ops">Back to the queue</a></p>`,
    );
  });

  app.setNotFoundHandler((request, reply) =>
    sendHtml(
      reply,
      404,
      'Not found',
      html`<h1>Not found</h1>
        <p>No page ${request.url}.</p>
        <p><a href="/ops">Back to the queue</a></p>`,
    ),
  );

  const reviewer = (request: FastifyRequest) => checkBasicAuth(request.headers.authorization, credential!) ?? 'operator';

  app.get('/', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const pageNo = request.query.page;
    const base = db.selectFrom('offers').where('status', '=', 'pending');
    const [rows, count] = await Promise.all([
      base
        .select(['id', 'title', 'type', 'document', 'submitted_at'])
        .orderBy('submitted_at')
        .orderBy('id')
        .limit(PER_PAGE)
        .offset((pageNo - 1) * PER_PAGE)
        .execute(),
      base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    const total = Number(count.n);
    const pages = Math.max(1, Math.ceil(total / PER_PAGE));
    const body = html`<h1>Waiting for review <span class="muted">(${total})</span></h1>
      ${
        rows.length === 0
          ? html`<p class="muted">No offer is waiting for review${pageNo > 1 ? ' on this page' : ''}.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th>Title</th>
                  <th>Type</th>
                  <th>Advertiser</th>
                  <th>Submitted</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (r) =>
                    html`<tr data-offer-id="${r.id}">
                      <td><a href="/ops/offers/${encodeURIComponent(r.id)}">${r.title}</a></td>
                      <td>${r.type}</td>
                      <td>${(r.document as OfferInput).advertiser?.name}</td>
                      <td>${fmtTime(r.submitted_at)}</td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      <nav class="pages">
        ${pageNo > 1 ? html`<a href="/ops?page=${pageNo - 1}">← previous page</a>` : ''}
        <span class="muted">page ${pageNo} of ${pages}, oldest first</span>
        ${pageNo < pages ? html`<a href="/ops?page=${pageNo + 1}">next page →</a>` : ''}
      </nav>`;
    return sendHtml(reply, 200, 'Waiting for review', body);
  });

  app.get(
    '/offers/:id',
    { schema: { hide: true, params: IdParams, querystring: z.object({ sent: z.enum(['approve', 'reject']).optional() }) } },
    async (request, reply) => {
      const row = await db.selectFrom('offers').selectAll().where('id', '=', request.params.id).executeTakeFirst();
      if (!row) throw new OpsPageError(404, 'Not found', `There is no offer ${request.params.id}.`);
      return sendHtml(reply, 200, row.title, await offerPage(row, request.query.sent));
    },
  );

  async function offerPage(row: OfferRow, sent: ReviewVerdict | undefined): Promise<SafeHtml> {
    const offer: SubmissionOffer = toSubmissionOffer(row);
    const attachments = await findClientAttachments(
      db,
      row.client_id,
      offer.creative.original_media.map((m) => m.id),
    );
    const categoryIds = offer.advertiser.categories.map((c) => c.id);
    const categories = categoryIds.length
      ? await db.selectFrom('categories').select(['id', 'name']).where('id', 'in', categoryIds).execute()
      : [];
    const categoryName = new Map(categories.map((c) => [c.id, c.name]));
    const id = encodeURIComponent(offer.id);
    const notice = sent
      ? offer.status === 'pending'
        ? html`<p class="notice">The ${sent} decision was sent; the workflow has not recorded it yet. Reload in a moment.</p>`
        : html`<p class="notice">Decision recorded: the offer is now <strong>${offer.status}</strong>.</p>`
      : '';
    const restrictions = offer.restrictions;
    const location = (l: (typeof offer.advertiser.redemption_locations)[number]) =>
      [l.address_line_1, l.address_line_2, l.city, l.state_code, l.postal_code, l.country_code].filter(Boolean).join(', ');
    return html`<p><a href="/ops">← Back to the queue</a></p>
      ${notice}
      <h1>${offer.title} ${statusBadge(offer.status)}</h1>
      <section>
        <h2>Offer</h2>
        ${fields([
          ['Id', offer.id],
          ['Type', offer.type],
          ['Price', fmtMoney(offer.price)],
          ['Value', fmtMoney(offer.value)],
          [
            'Discount',
            offer.discount
              ? (offer.discount.type === 'percentage' ? `${offer.discount.percentage}%` : fmtMoney(offer.discount.amount)) +
                (offer.discount.description ? ` — ${offer.discount.description}` : '')
              : undefined,
          ],
          ['Dates', `${offer.start_date} to ${offer.end_date}`],
          ['Vouchers activate', offer.vouchers_activation_date],
          [
            'Vouchers expire',
            offer.vouchers_expire
              ? offer.vouchers_expire.on
                ? `on ${offer.vouchers_expire.on}`
                : `${offer.vouchers_expire.days_after_purchase} days after purchase`
              : undefined,
          ],
          ['Initial quantity', offer.initial_quantity],
          ['Check-ins required', offer.checkins_required],
          [
            'Bundle items',
            offer.items?.length
              ? offer.items.map((i) => `${i.quantity} × ${i.title}${i.value ? ` (${fmtMoney(i.value)})` : ''}`).join('\n')
              : undefined,
          ],
          ['Submitted', fmtTime(offer.submitted_at)],
          ['Reviewed', offer.reviewed_at ? `${fmtTime(offer.reviewed_at)}${row.reviewed_by ? ` by ${row.reviewed_by}` : ''}` : undefined],
          ['Rejection reason', offer.rejection_reason],
        ])}
      </section>
      <section>
        <h2>Creative</h2>
        ${fields([
          [
            'Headlines',
            offer.creative.headlines.length
              ? html`<ul>
                  ${offer.creative.headlines.map((h) => html`<li>${h}</li>`)}
                </ul>`
              : undefined,
          ],
          ['Description', offer.creative.description],
          ['Editorial support', offer.creative.requires_editorial_support ? 'requested' : undefined],
        ])}
        <h2>Attachments</h2>
        ${
          attachments.length === 0
            ? html`<p class="muted">none</p>`
            : attachments.map((a) =>
                a.content_type.startsWith('image/')
                  ? html`<figure>
                      <img class="media" src="/ops/attachments/${encodeURIComponent(a.id)}" alt="${a.file_name}" />
                      <figcaption class="muted">${a.file_name}</figcaption>
                    </figure>`
                  : html`<p>
                      <a href="/ops/attachments/${encodeURIComponent(a.id)}" download>${a.file_name}</a>
                      <span class="muted">(${a.content_type}, ${Math.ceil(Number(a.size_bytes) / 1024)} KB)</span>
                    </p>`,
              )
        }
      </section>
      <section>
        <h2>Advertiser</h2>
        ${fields([
          ['Name', offer.advertiser.name],
          ['Description', offer.advertiser.description],
          ['Categories', offer.advertiser.categories.map((c) => categoryName.get(c.id) ?? `#${c.id}`).join(', ')],
          ['Locations', offer.advertiser.redemption_locations.map(location).join('\n')],
          ['Website', offer.advertiser.website_url],
          ['Phone', offer.advertiser.public_phone],
        ])}
      </section>
      <section>
        <h2>Fine print and restrictions</h2>
        ${fields([
          ['Fine print', offer.fine_print],
          ['Minimum age', restrictions?.min_age],
          ['Limit per customer', restrictions?.limit_per_customer],
          ['Limit per order', restrictions?.limit_per_order],
          ['New customers only', restrictions?.new_customers_only === undefined ? undefined : String(restrictions.new_customers_only)],
          [
            'Appointment required',
            restrictions?.appointment_required === undefined ? undefined : String(restrictions.appointment_required),
          ],
          ['Online redemption', restrictions?.online_redemption === undefined ? undefined : String(restrictions.online_redemption)],
          ['Valid days', restrictions?.valid_days?.join(', ')],
          ['Notes', restrictions?.notes],
        ])}
      </section>
      <section>
        <h2>Custom attributes</h2>
        ${offer.custom_attributes.length ? fields(offer.custom_attributes.map((c) => [c.name, c.value])) : html`<p class="muted">none</p>`}
      </section>
      <section>
        <h2>Decision</h2>
        ${
          offer.status === 'pending'
            ? html`<div class="actions">
                <form method="post" action="/ops/offers/${id}/approve"><button class="approve" type="submit">Approve</button></form>
                <form method="post" action="/ops/offers/${id}/reject">
                  <label for="reason">Reason for rejection (shown to the advertiser)</label><br />
                  <textarea id="reason" name="reason" required maxlength="2000"></textarea><br />
                  <button class="reject" type="submit">Reject</button>
                </form>
              </div>`
            : html`<p>This offer is ${statusBadge(offer.status)}; only pending offers are reviewed.</p>`
        }
      </section>`;
  }

  const decide = async (request: FastifyRequest, reply: FastifyReply, offerId: string, verdict: ReviewVerdict, reason?: string) => {
    let from: string;
    try {
      ({ from } = await sendReviewDecision(deps, offerId, verdict, { reason, reviewer: reviewer(request) }));
    } catch (err) {
      if (!(err instanceof ReviewDecisionError)) throw err;
      throw err.reason === 'not_found'
        ? new OpsPageError(404, 'Not found', err.message)
        : new OpsPageError(409, 'Not decided', err.message);
    }
    request.log.info({ offer_id: offerId, decision: verdict }, 'review console: decision sent');
    await waitForStatusChange(db, offerId, from, DECISION_WAIT_MS);
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
    const row = await db
      .selectFrom('attachments')
      .selectAll()
      .where('id', '=', request.params.id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw new OpsPageError(404, 'Not found', `There is no attachment ${request.params.id}.`);
    const body = await deps.store.client.getObject(deps.store.bucket, row.object_key).catch((err: { code?: string }) => {
      throw err.code === 'NoSuchKey' ? new OpsPageError(404, 'Not found', 'The attachment content is missing from the store.') : err;
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
