import type { WorkflowHandle } from '@temporalio/client';
import { OFFER_REVIEW_WORKFLOW_TYPE, type OfferReviewInput, type OfferReviewWorkflow } from '../../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../../workflows/shared/ids';
import type { ActivityCalls, ActivityDoubles, WorkflowTestEnv } from './workflow-env';

/*
 * The offer-review workflow's unit tests share these: doubles of its activities that record their
 * calls and do nothing else, and a starter giving each test offer an id of its own.
 */

/** Recording doubles of every activity the offer-review workflow calls; `overrides` replace some. */
export function offerReviewDoubles(calls: ActivityCalls, overrides: ActivityDoubles = {}): ActivityDoubles {
  return calls.wrap({
    recordOfferStatus: async () => ({ reviewDueAtMs: null }),
    publishOffer: async () => {},
    recordOfferEdit: async () => {},
    recordReviewOverdue: async (r: { waitingSeconds?: number }) => ({
      recorded: true,
      waitingSeconds: r.waitingSeconds ?? 0,
      dueAtMs: null,
    }),
    recordVouchersExpired: async () => {},
    ...overrides,
  });
}

/** Starts offer-review workflows on a worker's task queue, each for a fresh offer id (`ofr_<prefix><pid>x<n>`). */
export function offerReviewStarter(env: WorkflowTestEnv, prefix: string) {
  let offers = 0;
  return (taskQueue: string, input: Omit<OfferReviewInput, 'offerId'>): Promise<WorkflowHandle<OfferReviewWorkflow>> => {
    const offerId = `ofr_${prefix}${process.pid}x${++offers}`;
    return env.client.workflow.start<OfferReviewWorkflow>(OFFER_REVIEW_WORKFLOW_TYPE, {
      workflowId: offerReviewWorkflowId(offerId),
      taskQueue,
      args: [{ offerId, ...input }],
    });
  };
}
