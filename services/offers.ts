import { WorkflowNotFoundError } from '@temporalio/client';
import { newId } from '../store/ids';
import { deleteUnstartedOffer, insertOffer } from '../store/offers';
import type { OfferRow } from '../store/database';
import { changeStatusUpdate, editOfferUpdate, offerReviewWorkflow } from '../workflows/offer-review';
import { offerReviewWorkflowId } from '../workflows/shared/ids';
import { clientMoveError, editError, type ClientStatus, type OfferStatus } from '../domain/offer-lifecycle';
import { AdvertiserNameKey, OfferStatusKey, OfferTypeKey } from '../workflows/shared/search-attributes';
import type { ServiceDeps } from './deps';
import { conflict, Failure, notFound } from '../domain/failures';
import { checkOfferReferences } from '../store/offer-references-queries';
import { findClientOffer } from '../store/offers-queries';
import { OfferInput, type OfferUpdate } from '../schemas/offer';

/*
 * What the offer routes do, beyond parsing: writes go to Postgres in one transaction and every
 * later change goes through the offer's review workflow, which owns its state.
 */

export async function createOffer(deps: ServiceDeps, clientId: string, input: OfferInput): Promise<string> {
  await checkOfferReferences(deps.db, clientId, input);
  const id = newId('ofr');
  await insertOffer(deps.db, { id, clientId, input });
  try {
    await deps.temporal.workflow.start(offerReviewWorkflow, {
      workflowId: offerReviewWorkflowId(id),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [{ offerId: id, status: 'pending', endDate: input.end_date, reviewReminderSeconds: deps.config.REVIEW_REMINDER_SECONDS }],
      typedSearchAttributes: [
        { key: OfferStatusKey, value: 'pending' },
        { key: AdvertiserNameKey, value: input.advertiser.name },
        { key: OfferTypeKey, value: input.type },
      ],
    });
  } catch (err) {
    // No offer without its review: undo the insert and let the client retry.
    await deleteUnstartedOffer(deps.db, id);
    deps.log.error({ err, offer_id: id }, 'could not start the offer review workflow');
    throw new Failure('backend_unavailable', 'the review service is unavailable; the offer was not created, retry shortly');
  }
  return id;
}

export async function requireOffer(deps: ServiceDeps, clientId: string, offerId: string): Promise<OfferRow> {
  const row = await findClientOffer(deps.db, clientId, offerId);
  if (!row) throw notFound('offer');
  return row;
}

/** Runs an update on the offer's workflow; a finished workflow means the offer no longer changes. */
async function updateWorkflow<T>(
  deps: ServiceDeps,
  offerId: string,
  run: (h: ReturnType<ServiceDeps['temporal']['workflow']['getHandle']>) => Promise<T>,
): Promise<T> {
  try {
    return await run(deps.temporal.workflow.getHandle(offerReviewWorkflowId(offerId)));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw conflict('invalid_state_transition', 'this offer has ended and can no longer change');
    throw err;
  }
}

export async function changeOfferStatus(deps: ServiceDeps, row: OfferRow, to: ClientStatus): Promise<void> {
  // Checked here for a quick answer; the workflow's update validator checks again, authoritatively.
  const refused = clientMoveError(row.status as OfferStatus, to);
  if (refused) throw conflict('invalid_state_transition', refused, { status: row.status });
  await updateWorkflow(deps, row.id, (h) => h.executeUpdate(changeStatusUpdate, { args: [{ to }] }));
}

/** Merges changed fields into the offer (top-level fields replace whole) and validates the result whole. */
export async function editOffer(deps: ServiceDeps, row: OfferRow, changes: OfferUpdate): Promise<void> {
  const refused = editError(row.status as OfferStatus);
  if (refused) throw conflict('invalid_state_transition', refused, { status: row.status });
  const merged = OfferInput.safeParse({ ...(row.document as object), ...changes });
  if (!merged.success) {
    throw Failure.of(
      merged.error.issues.map((i) => ({ code: 'invalid_field', field: i.path.join('.'), message: `${i.path.join('.')}: ${i.message}` })),
    );
  }
  await checkOfferReferences(deps.db, row.client_id, merged.data);
  const changedFields = Object.keys(changes);
  await updateWorkflow(deps, row.id, (h) => h.executeUpdate(editOfferUpdate, { args: [{ input: merged.data, changedFields }] }));
}
