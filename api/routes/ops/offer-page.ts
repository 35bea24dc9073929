import type { ReviewHistory, ReviewVerdict, OfferUnderReview } from '../../../services/review';
import type { ReviewTimelineEntry } from '../../../services/review';
import { fields, fmtDuration, fmtMoney, fmtTime, statusBadge } from './format';
import { html, type SafeHtml } from './html';

type Offer = OfferUnderReview['offer'];

/** Above the title, just after a decision was sent: whether the workflow has recorded it yet. */
function decisionNotice(offer: Offer, sent: ReviewVerdict | undefined): SafeHtml | '' {
  if (!sent) return '';
  return offer.status === 'pending'
    ? html`<p class="notice">The ${sent} decision was sent; the workflow has not recorded it yet. Reload in a moment.</p>`
    : html`<p class="notice">Decision recorded: the offer is now <strong>${offer.status}</strong>.</p>`;
}

function discountText(discount: Offer['discount']): string | undefined {
  if (!discount) return undefined;
  const amount = discount.type === 'percentage' ? `${discount.percentage}%` : fmtMoney(discount.amount);
  return amount + (discount.description ? ` — ${discount.description}` : '');
}

function expiryText(expire: Offer['vouchers_expire']): string | undefined {
  if (!expire) return undefined;
  return expire.on ? `on ${expire.on}` : `${expire.days_after_purchase} days after purchase`;
}

/** The offer's own terms: price, dates, vouchers, bundle, and where its review stands. */
function offerSection(offer: Offer, reviewedBy: OfferUnderReview['reviewedBy']): SafeHtml {
  const items = offer.items?.length
    ? offer.items.map((i) => `${i.quantity} × ${i.title}${i.value ? ` (${fmtMoney(i.value)})` : ''}`).join('\n')
    : undefined;
  return html`<section>
    <h2>Offer</h2>
    ${fields([
      ['Id', offer.id],
      ['Type', offer.type],
      ['Price', fmtMoney(offer.price)],
      ['Value', fmtMoney(offer.value)],
      ['Discount', discountText(offer.discount)],
      ['Dates', `${offer.start_date} to ${offer.end_date}`],
      ['Vouchers activate', offer.vouchers_activation_date],
      ['Vouchers expire', expiryText(offer.vouchers_expire)],
      ['Initial quantity', offer.initial_quantity],
      ['Check-ins required', offer.checkins_required],
      ['Bundle items', items],
      ['Submitted', fmtTime(offer.submitted_at)],
      ['Reviewed', offer.reviewed_at ? `${fmtTime(offer.reviewed_at)}${reviewedBy ? ` by ${reviewedBy}` : ''}` : undefined],
      ['Rejection reason', offer.rejection_reason],
    ])}
  </section>`;
}

/** One attachment through the console's own route: an image as a thumbnail, anything else as a download link. */
function attachmentItem(a: OfferUnderReview['attachments'][number]): SafeHtml {
  const href = `/ops/attachments/${encodeURIComponent(a.id)}`;
  return a.content_type.startsWith('image/')
    ? html`<figure class="thumb">
        <a href="${href}" title="open the full image"><img class="media" src="${href}" alt="${a.file_name}" loading="lazy" /></a>
        <figcaption class="muted">${a.file_name}</figcaption>
      </figure>`
    : html`<p>
        <a href="${href}" download>${a.file_name}</a>
        <span class="muted">(${a.content_type}, ${Math.ceil(Number(a.size_bytes) / 1024)} KB)</span>
      </p>`;
}

/** What the customer will see: headlines, description, and the media. */
function creativeSection(offer: Offer, attachments: OfferUnderReview['attachments']): SafeHtml {
  const headlines = offer.creative.headlines;
  return html`<section>
    <h2>Creative</h2>
    ${fields([
      ['Headlines', headlines.length ? html`<ul>${headlines.map((h) => html`<li>${h}</li>`)}</ul>` : undefined],
      ['Description', offer.creative.description],
      ['Editorial support', offer.creative.requires_editorial_support ? 'requested' : undefined],
    ])}
    <h2>Attachments</h2>
    ${attachments.length === 0 ? html`<p class="muted">none</p>` : attachments.map(attachmentItem)}
  </section>`;
}

const location = (l: Offer['advertiser']['redemption_locations'][number]) =>
  [l.address_line_1, l.address_line_2, l.city, l.state_code, l.postal_code, l.country_code].filter(Boolean).join(', ');

function advertiserSection(offer: Offer, categoryNames: OfferUnderReview['categoryNames']): SafeHtml {
  return html`<section>
    <h2>Advertiser</h2>
    ${fields([
      ['Name', offer.advertiser.name],
      ['Description', offer.advertiser.description],
      ['Categories', offer.advertiser.categories.map((c) => categoryNames.get(c.id) ?? `#${c.id}`).join(', ')],
      ['Locations', offer.advertiser.redemption_locations.map(location).join('\n')],
      ['Website', offer.advertiser.website_url],
      ['Phone', offer.advertiser.public_phone],
    ])}
  </section>`;
}

/** A yes/no restriction as the page shows it, or nothing when the advertiser left it unset. */
const flag = (value: boolean | undefined) => (value === undefined ? undefined : String(value));

function restrictionsSection(offer: Offer): SafeHtml {
  const r = offer.restrictions;
  return html`<section>
    <h2>Fine print and restrictions</h2>
    ${fields([
      ['Fine print', offer.fine_print],
      ['Minimum age', r?.min_age],
      ['Limit per customer', r?.limit_per_customer],
      ['Limit per order', r?.limit_per_order],
      ['New customers only', flag(r?.new_customers_only)],
      ['Appointment required', flag(r?.appointment_required)],
      ['Online redemption', flag(r?.online_redemption)],
      ['Valid days', r?.valid_days?.join(', ')],
      ['Notes', r?.notes],
    ])}
  </section>`;
}

function customAttributesSection(offer: Offer): SafeHtml {
  return html`<section>
    <h2>Custom attributes</h2>
    ${offer.custom_attributes.length ? fields(offer.custom_attributes.map((c) => [c.name, c.value])) : html`<p class="muted">none</p>`}
  </section>`;
}

/** The approve and reject forms while the offer is pending; its status otherwise. */
function decisionSection(offer: Offer): SafeHtml {
  const id = encodeURIComponent(offer.id);
  return html`<section>
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

/**
 * One offer as a reviewer reads it: every field the advertiser wrote, its media (through the
 * console's own attachment route), and the decision forms while it is pending. `sent` is the
 * decision just sent, for the notice on top.
 */
export function offerPage(review: OfferUnderReview, sent: ReviewVerdict | undefined): SafeHtml {
  const { offer } = review;
  return html`<p><a href="/ops">← Back to the queue</a></p>
    ${decisionNotice(offer, sent)}
    <h1>${offer.title} ${statusBadge(offer.status)}</h1>
    ${offerSection(offer, review.reviewedBy)}
    ${creativeSection(offer, review.attachments)}
    ${advertiserSection(offer, review.categoryNames)}
    ${restrictionsSection(offer)}
    ${customAttributesSection(offer)}
    ${timelineSection(review.history)}
    ${decisionSection(offer)}`;
}

const ACTORS = { advertiser: 'the advertiser', review_team: 'the review team', system: 'the service' } as const;

/** One timeline entry as a sentence. */
function describe(e: ReviewTimelineEntry): SafeHtml {
  switch (e.kind) {
    case 'started':
      return e.status === 'pending' ? html`Submitted for review` : html`Review workflow started with status <strong>${e.status}</strong>`;
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
