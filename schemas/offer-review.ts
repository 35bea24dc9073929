import { z } from 'zod';
import { Timestamp } from './common';
import { okEnvelope } from './envelope';

/*
 * GET /submission/beta/offers/:id/review (docs/offer-lifecycle.md "Following a review"): where the
 * offer's review stands, as the workflow recorded it in Postgres, with the expected decision time
 * and the SLA.
 */

export const REVIEW_STEP_TYPES = [
  'submitted',
  'resubmitted',
  'edited',
  'commented',
  'review_started',
  'overdue',
  'approved',
  'rejected',
  'withdrawn',
  'suspended',
  'resumed',
  'cancelled',
  'closed',
] as const;

export const ReviewStep = z
  .object({
    type: z.enum(REVIEW_STEP_TYPES),
    at: Timestamp,
    actor: z.enum(['advertiser', 'review_team', 'system']),
    /** The operator's name as the review console shows it (decisions and openings); absent otherwise. */
    operator: z.string().optional(),
    /** A rejection's reason. */
    reason: z.string().optional(),
    /** An edit's changed top-level fields. */
    changed_fields: z.array(z.string()).optional(),
    /** A comment's id, author and text (`commented`). */
    comment_id: z.string().optional(),
    author_name: z.string().optional(),
    content: z.string().optional(),
  })
  .describe('One step of the review, oldest first.');

export const ReviewEstimateBasis = z.object({
  scope: z
    .enum(['category', 'overall', 'none'])
    .describe("whose decisions: the offer's first category (with at least 20), every category, or none yet"),
  category_id: z.number().int().nullable(),
  decisions: z.number().int().describe('how many of the last decisions (at most 200) the figures come from'),
  p50_seconds: z.number().nullable().describe('median time from submission to decision'),
  p90_seconds: z.number().nullable().describe('90th percentile of the same'),
});

export const ReviewSla = z.object({
  due_at: Timestamp.describe('submitted_at + the review SLA'),
  remaining_seconds: z.number().int().describe('seconds until due_at; negative once breached'),
  breached: z.boolean(),
});

export const OfferReview = z.object({
  offer_id: z.string(),
  state: z.string().describe("the offer's status"),
  submitted_at: Timestamp.describe('when the current review round began'),
  steps: z.array(ReviewStep),
  queue_position: z.number().int().nullable().describe('1 = reviewed next; null when not pending'),
  expected_decision_at: Timestamp.nullable().describe(
    'while pending: submitted_at + the median duration of past reviews that lasted at least as long as this one so far; null otherwise or without data',
  ),
  expected_decision_basis: ReviewEstimateBasis,
  sla: ReviewSla.nullable().describe('while pending; null otherwise'),
});

export type OfferReview = z.infer<typeof OfferReview>;
export type ReviewStep = z.infer<typeof ReviewStep>;
export const OfferReviewResponse = okEnvelope('review', OfferReview);
