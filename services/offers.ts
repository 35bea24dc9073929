import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { keyedRequestId, newId } from '../store/ids';
import { deleteUnstartedOffer, findClientOffer, insertOffer, listClientOffers } from '../store/offers';
import { reviewDueAt } from '../store/offer-reviews';
import { findAdvertiserByName } from '../store/advertisers';
import { appendSuppliedCodes, hasSuppliedCodes, listSuppliedCodes, suppliedCodesOf, type SuppliedCode } from '../store/supplied-vouchers';
import type { OfferRow } from '../store/database';
import {
  changeStatusUpdate,
  editOfferUpdate,
  OFFER_REVIEW_WORKFLOW_TYPE,
  type OfferReviewWorkflow,
} from '../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../workflows/shared/ids';
import { AdvertiserNameKey, OfferStatusKey, OfferTypeKey } from '../workflows/shared/search-attributes';
import { clientMoveError, editError, type ClientStatus, type OfferStatus } from '../domain/offer-lifecycle';
import { conflict, Failure, invalidField, notFound } from '../domain/failures';
import type { Page, Paged } from '../domain/paging';
import { OfferInput, repeatedCodes, type OfferUpdate, type SubmissionOffer, type SuppliedVoucher } from '../schemas/offer';
import { toSubmissionOffer, toSuppliedVoucher } from '../schemas/offer-view';
import { createdStock, type OfferCreate } from '../schemas/offer-create';
import type { ServiceDeps } from './deps';
import { checkOfferReferences } from './offer-references';
import { updateWithinDeadline } from './workflow-outcomes';

/*
 * The advertiser's offers: writes go to Postgres in one transaction and every later change goes
 * through the offer's review workflow, which owns its state.
 */

type Deps = Pick<ServiceDeps, 'db' | 'temporal' | 'config' | 'log'>;

/** How many supplied codes an offer answer lists; the rest are paged at GET /offers/:id/supplied_vouchers. */
const SUPPLIED_SHOWN = 100;

/** The offers as the submission interface shows them, with the first supplied codes of those that have them. */
async function views(deps: Pick<ServiceDeps, 'db'>, rows: OfferRow[]): Promise<SubmissionOffer[]> {
  const supplied = await suppliedCodesOf(
    deps.db,
    rows.map((r) => r.id),
    SUPPLIED_SHOWN,
  );
  return rows.map((r) => toSubmissionOffer(r, supplied.get(r.id)));
}

/**
 * Creates the offer, pending review, and starts its review workflow; returns the offer as stored.
 * `id`, when given (an offer import's line: derived from the import and the line), makes a retry
 * create nothing twice: an offer already there with that id is not inserted again, and its review
 * is started only if it never was. A POST with an Idempotency-Key names its offer after the keyed
 * request (`keyedRequest`), so that a retry after a 5xx (never replayed) finds the first try's offer.
 */
export async function createOffer(
  deps: Deps,
  clientId: string,
  sent: OfferCreate,
  opts: { id?: string; keyedRequest?: string } = {},
): Promise<SubmissionOffer> {
  // The spec's quantity_in_stock is the stock when initial_quantity is absent (checked equal when both are given).
  const { quantity_in_stock: _alias, ...offer } = sent;
  const stock = createdStock(sent);
  if (stock !== undefined) offer.initial_quantity = stock;
  await checkOfferReferences(deps, clientId, offer);
  // Supplied codes live in their own table, not in the document: the stock is their number.
  const { vouchers: suppliedCodes, ...rest } = offer;
  const input: OfferInput = suppliedCodes ? { ...rest, initial_quantity: suppliedCodes.length } : rest;
  const named = opts.id ?? keyedRequestId('ofr', clientId, opts.keyedRequest);
  const id = named ?? newId('ofr');
  const existed = named !== undefined && (await findClientOffer(deps.db, clientId, id)) !== undefined;
  if (!existed) await insertOffer(deps.db, { id, clientId, input, suppliedCodes });
  try {
    await startReview(deps, id, input, { again: existed, named: named !== undefined });
  } catch (err) {
    // No offer without its review: undo the insert and let the client retry.
    if (!existed) await deleteUnstartedOffer(deps.db, id);
    deps.log.error({ err, offer_id: id }, 'could not start the offer review workflow');
    throw new Failure('backend_unavailable', 'the review service is unavailable; the offer was not created, retry shortly');
  }
  return getOffer(deps, clientId, id);
}

/**
 * Starts a new offer's review; for an offer created before (`again`), only if no review of it was
 * ever started. A `named` offer's review already running is its own: a first try whose start
 * reached Temporal but not its answer (the offer then undone) was the same request, so the retry
 * takes that review instead of failing on it for ever.
 */
async function startReview(deps: Deps, id: string, input: OfferInput, { again, named }: { again: boolean; named: boolean }): Promise<void> {
  try {
    await deps.temporal.workflow.start<OfferReviewWorkflow>(OFFER_REVIEW_WORKFLOW_TYPE, {
      workflowId: offerReviewWorkflowId(id),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [
        {
          offerId: id,
          status: 'pending',
          startDate: input.start_date,
          endDate: input.end_date,
          vouchersExpireOn: input.vouchers_expire?.on ?? null,
          reminderDueAtMs: (await reviewDueAt(deps.db, id))?.getTime() ?? null,
        },
      ],
      typedSearchAttributes: [
        { key: OfferStatusKey, value: 'pending' },
        { key: AdvertiserNameKey, value: input.advertiser.name },
        { key: OfferTypeKey, value: input.type },
      ],
      ...(again ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const } : {}),
    });
  } catch (err) {
    if (!(named && err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** This client's offer as stored; another client's offer is not found. */
export async function requireOffer(deps: Pick<ServiceDeps, 'db'>, clientId: string, offerId: string): Promise<OfferRow> {
  return (await findClientOffer(deps.db, clientId, offerId)) ?? Promise.reject(notFound('offer'));
}

/** This client's offer as the submission interface shows it. */
export async function getOffer(deps: Pick<ServiceDeps, 'db'>, clientId: string, offerId: string): Promise<SubmissionOffer> {
  return (await views(deps, [await requireOffer(deps, clientId, offerId)]))[0];
}

/** One page of the codes this client supplied for its offer, in upload order, with their state. */
export async function listSuppliedVouchers(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  offerId: string,
  page: Page,
): Promise<Paged<SuppliedVoucher>> {
  await requireOffer(deps, clientId, offerId);
  const { rows, total } = await listSuppliedCodes(deps.db, offerId, page);
  return { rows: rows.map(toSuppliedVoucher), total };
}

/** One page of this client's offers, newest first, optionally of some statuses and types only. */
export async function listOffers(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  q: Page & { status?: OfferStatus[]; type?: string[] },
): Promise<Paged<SubmissionOffer>> {
  const { rows, total } = await listClientOffers(deps.db, clientId, q);
  return { rows: await views(deps, rows), total };
}

/** `PUT /offers/:id`: either a status move (`{status}` alone) or an edit of fields; returns the offer after it. */
export async function updateOffer(deps: Deps, clientId: string, offerId: string, update: OfferUpdate): Promise<SubmissionOffer> {
  const row = await requireOffer(deps, clientId, offerId);
  const { status, ...changes } = update;
  if (status) await moveOffer(deps, row, status);
  else await editOffer(deps, row, changes);
  return getOffer(deps, clientId, offerId);
}

/** `DELETE /offers/:id` cancels: the offer stays readable (its vouchers refer to it) with status `cancelled`. */
export async function cancelOffer(deps: Deps, clientId: string, offerId: string): Promise<void> {
  const row = await requireOffer(deps, clientId, offerId);
  if (row.status !== 'cancelled') await moveOffer(deps, row, 'cancelled');
}

/**
 * Runs an update on the offer's workflow within the answer deadline; a finished workflow means the
 * offer no longer changes. Past the deadline: accepted (202, it will be applied) or unconfirmed (503).
 */
async function updateWorkflow<R, A>(deps: Deps, offerId: string, update: UpdateDefinition<R, [A]>, arg: A): Promise<R> {
  const handle = deps.temporal.workflow.getHandle(offerReviewWorkflowId(offerId));
  return updateWithinDeadline(
    deps,
    (waitForStage) => handle.startUpdate(update, { args: [arg], waitForStage }),
    {
      accepted: `the change to offer ${offerId} was accepted and will be applied; GET /offers/${offerId} shows it once it is`,
      unconfirmed: `the change to offer ${offerId} could not be confirmed in time; GET /offers/${offerId}, and send it again if it has not happened`,
      offer_id: offerId,
    },
    'this offer has ended and can no longer change',
  );
}

/** The advertiser's status move, through the workflow's `changeStatus` update. */
async function moveOffer(deps: Deps, row: OfferRow, to: ClientStatus): Promise<void> {
  // Checked here for a quick answer; the workflow's update validator checks again, authoritatively.
  const refused = clientMoveError(row.status as OfferStatus, to);
  if (refused) throw conflict('invalid_state_transition', refused, { status: row.status });
  await updateWorkflow(deps, row.id, changeStatusUpdate, { to });
}

/**
 * Merges changed fields into the offer (top-level fields replace whole) and validates the result
 * whole. Supplied `vouchers` are appended to the offer's codes (one transaction, growing its stock)
 * once the rest is known to be valid; the other fields then go through the review workflow.
 */
async function editOffer(deps: Deps, row: OfferRow, sent: Partial<OfferInput>): Promise<void> {
  const refused = editError(row.status as OfferStatus);
  if (refused) throw conflict('invalid_state_transition', refused, { status: row.status });
  const { vouchers: added, ...changes } = sent;
  const sells = await hasSuppliedCodes(deps.db, row.id);
  if (added && !sells)
    throw invalidField('vouchers', 'this offer was created without supplied codes; its codes are generated by the service');
  const repeated = added && repeatedCodes(added);
  if (repeated) throw invalidField('vouchers', repeated);
  if (sells) await checkSuppliedEdit(deps, row, changes, added);
  const merged = OfferInput.safeParse({ ...(row.document as object), ...changes });
  if (!merged.success) {
    throw Failure.of(
      merged.error.issues.map((i) => ({ code: 'invalid_field', field: i.path.join('.'), message: `${i.path.join('.')}: ${i.message}` })),
    );
  }
  await checkOfferReferences(deps, row.client_id, merged.data);
  if (changes.advertiser) await checkAdvertiserName(deps, row, merged.data);
  if (added) await appendSuppliedCodes(deps.db, { offerId: row.id, codes: added });
  const changedFields = Object.keys(changes);
  if (changedFields.length === 0) return;
  if (added && changes.initial_quantity === undefined) merged.data.initial_quantity = (row.initial_quantity ?? 0) + added.length;
  await updateWorkflow(deps, row.id, editOfferUpdate, { input: merged.data, changedFields });
}

/**
 * An edit of an offer that sells supplied codes: its stock follows its codes, so initial_quantity,
 * if sent, must equal their number after the append; and its codes are its advertiser's, so it keeps it.
 */
async function checkSuppliedEdit(deps: Deps, row: OfferRow, changes: Partial<OfferInput>, added?: SuppliedCode[]): Promise<void> {
  const total = (row.initial_quantity ?? 0) + (added?.length ?? 0);
  if (changes.initial_quantity !== undefined && changes.initial_quantity !== total)
    throw invalidField('initial_quantity', `initial_quantity must equal the number of supplied vouchers (${total}), or be left out`);
  if (changes.advertiser?.id && changes.advertiser.id !== row.advertiser_id)
    throw invalidField('advertiser.id', 'an offer with supplied voucher codes keeps its advertiser (its codes are unique per advertiser)');
}

/**
 * Without `advertiser.id`, an edit keeps the offer's advertiser and renames it; a name another of
 * the client's advertisers has is refused (the store checks again, under its lock).
 */
async function checkAdvertiserName(deps: Deps, row: OfferRow, offer: OfferInput): Promise<void> {
  const other = await findAdvertiserByName(deps.db, row.client_id, offer.advertiser.name);
  const target = offer.advertiser.id ?? row.advertiser_id;
  if (other && other.id !== target)
    throw invalidField(
      'advertiser.name',
      `another of your advertisers (${other.id}) is named "${other.name}"; send advertiser.id to use it`,
      {
        advertiser_id: other.id,
      },
    );
}
