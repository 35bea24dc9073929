import { listOfferComments } from '../store/comments';
import { decisionDurations, queuePlace, reviewSteps } from '../store/offer-reviews';
import type { CommentRow, OfferReviewStepRow } from '../store/database';
import { estimateBasis, expectedDecisionAt, slaStanding } from '../domain/review-estimate';
import type { OfferReview, ReviewStep } from '../schemas/offer-review';
import type { ServiceDeps } from './deps';
import { requireOffer } from './offers';

/*
 * An offer's review as its advertiser follows it (GET /offers/:id/review): everything read from
 * Postgres, what the review workflow's activities wrote, never by asking the workflow. Budget: one
 * offer, at most STEPS_READ steps and STEPS_READ comments, and 2 × DECISIONS_READ durations.
 */

/** The most steps (the newest) and comments (the first) one answer reads. */
const STEPS_READ = 200;

/** This client's offer's review; another client's offer is not found. */
export async function offerReview(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  offerId: string,
  now = new Date(),
): Promise<OfferReview> {
  const row = await requireOffer(deps, clientId, offerId);
  const categoryId = row.category_ids[0] ?? null;
  const pending = row.status === 'pending';
  const [steps, comments, place, overall, inCategory] = await Promise.all([
    reviewSteps(deps.db, offerId, STEPS_READ),
    listOfferComments(deps.db, offerId, { page: 1, per_page: STEPS_READ }),
    pending ? queuePlace(deps.db, offerId) : null,
    decisionDurations(deps.db),
    categoryId === null ? [] : decisionDurations(deps.db, categoryId),
  ]);
  const basis = estimateBasis(categoryId, inCategory, overall);
  const durations = basis.scope === 'category' ? inCategory : overall;
  return {
    offer_id: row.id,
    state: row.status,
    submitted_at: row.submitted_at,
    steps: [...steps.map(stepView), ...comments.rows.map(commentStep)].sort((a, b) => +new Date(a.at) - +new Date(b.at)),
    queue_position: place,
    expected_decision_at: pending ? expectedDecisionAt(row.submitted_at, now, durations) : null,
    expected_decision_basis: basis,
    sla: pending && row.review_due_at ? slaStanding(row.review_due_at, now) : null,
  };
}

function stepView(s: Pick<OfferReviewStepRow, 'at' | 'kind' | 'actor' | 'operator' | 'reason' | 'changed_fields'>): ReviewStep {
  return {
    type: s.kind as ReviewStep['type'],
    at: s.at,
    actor: s.actor as ReviewStep['actor'],
    ...(s.operator ? { operator: s.operator } : {}),
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.changed_fields ? { changed_fields: s.changed_fields } : {}),
  };
}

function commentStep(c: CommentRow): ReviewStep {
  return {
    type: 'commented',
    at: c.created_at,
    actor: c.author_role,
    ...(c.author_role === 'review_team' ? { operator: c.author_name } : {}),
    comment_id: c.id,
    author_name: c.author_name,
    content: c.content,
  };
}
