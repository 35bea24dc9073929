import type { ReviewHistory, ReviewVerdict, OfferUnderReview } from '../../../services/review';
import type { ReviewTimelineEntry } from '../../../services/review';
import { fields, fmtDuration, fmtMoney, fmtTime, statusBadge } from './format';
import { html, type SafeHtml } from './html';

/**
 * One offer as a reviewer reads it: every field the advertiser wrote, its media (through the
 * console's own attachment route), and the decision forms while it is pending. `sent` is the
 * decision just sent, for the notice on top.
 */
export function offerPage(review: OfferUnderReview, sent: ReviewVerdict | undefined): SafeHtml {
  const { offer, reviewedBy, attachments } = review;
  const categoryName = review.categoryNames;
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
        ['Reviewed', offer.reviewed_at ? `${fmtTime(offer.reviewed_at)}${reviewedBy ? ` by ${reviewedBy}` : ''}` : undefined],
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
                ? html`<figure class="thumb">
                    <a href="/ops/attachments/${encodeURIComponent(a.id)}" title="open the full image"
                      ><img class="media" src="/ops/attachments/${encodeURIComponent(a.id)}" alt="${a.file_name}" loading="lazy"
                    /></a>
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
        ['Appointment required', restrictions?.appointment_required === undefined ? undefined : String(restrictions.appointment_required)],
        ['Online redemption', restrictions?.online_redemption === undefined ? undefined : String(restrictions.online_redemption)],
        ['Valid days', restrictions?.valid_days?.join(', ')],
        ['Notes', restrictions?.notes],
      ])}
    </section>
    <section>
      <h2>Custom attributes</h2>
      ${offer.custom_attributes.length ? fields(offer.custom_attributes.map((c) => [c.name, c.value])) : html`<p class="muted">none</p>`}
    </section>
    ${timelineSection(review.history)}
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

const ACTORS = { advertiser: 'the advertiser', review_team: 'the review team', system: 'the service' } as const;

/** One timeline entry as a sentence. */
function describe(e: ReviewTimelineEntry): SafeHtml {
  switch (e.kind) {
    case 'started':
      return e.resumed
        ? html`Review workflow continued with status <strong>${e.status}</strong> (earlier steps were recorded before the timeline existed)`
        : e.status === 'pending'
          ? html`Submitted for review`
          : html`Review workflow started with status <strong>${e.status}</strong>`;
    case 'status':
      if (e.actor === 'review_team')
        return html`<strong>${e.to === 'approved' ? 'Approved' : e.to === 'rejected' ? 'Rejected' : e.to}</strong> by
          <span class="reviewer">${e.reviewer ?? 'an operator'}</span>${e.reason ? html`: “${e.reason}”` : ''}`;
      return html`Status <strong>${e.to}</strong> (by ${ACTORS[e.actor]})`;
    case 'reminder':
      return html`Reminder: the review has waited ${fmtDuration(e.waitingSeconds)}`;
    case 'edited':
      return html`Edited by the advertiser: ${e.changedFields.join(', ') || 'no field changed'}`;
    case 'ignored':
      return html`A ${e.decision === 'approved' ? 'approval' : 'rejection'} by ${e.reviewer ?? 'an operator'} was ignored (${e.refused})`;
  }
}

/** The review history read from the offer's workflow, newest last, and the link to the workflow in Temporal's Web UI. */
function timelineSection(history: ReviewHistory): SafeHtml {
  return html`<section data-testid="timeline">
    <h2>Review history</h2>
    ${
      history.timeline
        ? html`<ol class="timeline">
            ${history.timeline.map(
              (e) =>
                html`<li data-kind="${e.kind}">
                  <time datetime="${e.at}">${fmtTime(e.at)}</time>${describe(e)}
                </li>`,
            )}
          </ol>`
        : html`<p class="muted">The review workflow did not give its history: ${history.unavailable}.</p>`
    }
    ${
      history.webUiUrl
        ? html`<p><a href="${history.webUiUrl}" rel="noopener noreferrer" data-testid="temporal-link">Open the review workflow in the Temporal Web UI</a></p>`
        : html`<p class="muted">Set TEMPORAL_UI_URL to link to this workflow in the Temporal Web UI.</p>`
    }
  </section>`;
}
