import { WithStartWorkflowOperation } from '@temporalio/client';
import type { ServiceDeps } from './deps';
import { updateWithinDeadline } from './workflow-outcomes';
import type { Page, Paged } from '../domain/paging';
import { utcDay } from '../domain/dates';
import { openTo } from '../domain/exclusivity';
import { conflict, invalidField, notFound, refusalFailure } from '../domain/failures';
import { requireActiveAccount } from '../domain/account-lifecycle';
import type { ReservationRow } from '../store/database';
import { findAccount } from '../store/accounts';
import { derivedId, newId } from '../store/ids';
import { findOffersByIds } from '../store/offers';
import { findReservation, listReservations as listReservationRows } from '../store/reservations';
import { toReservation } from '../schemas/reservation';
import {
  cancelReservationUpdate,
  changeReservationUpdate,
  heldUpdate,
  RESERVATION_WORKFLOW_TYPE,
  type ReservationChangeArgs,
  type ReservationWindowInput,
} from '../workflows/reservation-window-messages';
import { reservationWorkflowId } from '../workflows/shared/ids';

/*
 * Reservations of an offer's units for one account, each held by a reservation-window workflow
 * that owns it from the hold until it is cancelled or expires.
 */

type ReservationView = ReturnType<typeof toReservation>;
type Ref = { clientId: string; offerId: string; reservationId: string };

async function requireReservation(deps: Pick<ServiceDeps, 'db'>, r: Ref): Promise<ReservationRow> {
  return (await findReservation(deps.db, r.clientId, r.offerId, r.reservationId)) ?? Promise.reject(notFound('reservation'));
}

async function requireActive(deps: Pick<ServiceDeps, 'db'>, r: Ref): Promise<void> {
  const row = await requireReservation(deps, r);
  if (row.status !== 'active') throw conflict('invalid_state_transition', `the reservation is ${row.status}`);
}

/**
 * Starts the reservation's workflow with the `held` Update and returns the reservation once its
 * units are held (or throws the refusal). With an Idempotency-Key the reservation's id (and so its
 * workflow's) is derived from the client and the keyed request (api/plugins/idempotency.ts,
 * `keyedRequestOf`): a retry after a 503 (not kept for a replay) finds the first hold's workflow
 * and asks it again, never holding twice.
 */
export async function holdReservation(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'config'>,
  clientId: string,
  offerId: string,
  r: { account_id: string; quantity_reserved: number; start_date: string; end_date: string },
  keyedRequest?: string,
): Promise<ReservationView> {
  const { temporal, config } = deps;
  if (r.end_date < utcDay()) throw invalidField('end_date', 'end_date must not be in the past');
  const [offer] = await findOffersByIds(deps.db, [offerId]);
  // An offer exclusive to other distributors does not exist for this one (the hold checks again, locked).
  if (!offer || !openTo(offer.document, clientId, utcDay())) throw notFound('offer');
  requireActiveAccount(r.account_id, await findAccount(deps.db, clientId, r.account_id));
  const reservationId = keyedRequest === undefined ? newId('rsv') : derivedId('rsv', `${clientId}\n${offerId}\n${keyedRequest}`);
  // A keyed retry whose first hold was made (its workflow may have ended since): that reservation is the answer.
  if (keyedRequest !== undefined && (await findReservation(deps.db, clientId, offerId, reservationId)))
    return getReservation(deps, { clientId, offerId, reservationId });
  const input: ReservationWindowInput = {
    hold: {
      reservationId,
      clientId,
      offerId,
      accountId: r.account_id,
      quantity: r.quantity_reserved,
      startDate: r.start_date,
      endDate: r.end_date,
    },
  };
  const startWorkflowOperation = new WithStartWorkflowOperation(RESERVATION_WORKFLOW_TYPE, {
    workflowId: reservationWorkflowId(reservationId),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [input],
    // A keyed retry joins the first hold's workflow while it runs (its `held` Update answers the same outcome).
    workflowIdConflictPolicy: keyedRequest === undefined ? 'FAIL' : 'USE_EXISTING',
  });
  const at = `GET /offers/${offerId}/reservations/${reservationId}`;
  // Accepted means the workflow runs and will hold or refuse: a retried POST would make a second
  // reservation, so the answer past the deadline names this one.
  const held = await updateWithinDeadline(
    deps,
    (waitForStage) => temporal.workflow.startUpdateWithStart(heldUpdate, { startWorkflowOperation, waitForStage }),
    {
      accepted: `reservation ${reservationId} is being made; ${at} shows it once its units are held`,
      unconfirmed: `reservation ${reservationId} could not be confirmed in time; ${at} shortly: it shows it if it was made`,
      reservation_id: reservationId,
    },
    'the reservation has ended',
  );
  if (!held.ok) throw refusalFailure(held);
  return getReservation(deps, { clientId, offerId, reservationId });
}

/** One reservation of this client under this offer (not_found otherwise). */
export async function getReservation(deps: Pick<ServiceDeps, 'db'>, r: Ref): Promise<ReservationView> {
  return toReservation(await requireReservation(deps, r));
}

/** A page of this client's reservations of one offer, newest first. */
export async function listReservations(
  deps: Pick<ServiceDeps, 'db'>,
  clientId: string,
  offerId: string,
  q: Page & { status?: ReservationRow['status']; account_id?: string },
): Promise<Paged<ReservationView>> {
  const { rows, total } = await listReservationRows(deps.db, clientId, offerId, q);
  return { rows: rows.map(toReservation), total };
}

/** What a reservation's change answers past the deadline: accepted (202) or not confirmed (503). */
function lateChange(r: Ref, what: string) {
  const at = `GET /offers/${r.offerId}/reservations/${r.reservationId}`;
  return {
    accepted: `the ${what} of reservation ${r.reservationId} was accepted and will be applied; ${at} shows it once it is`,
    unconfirmed: `the ${what} of reservation ${r.reservationId} could not be confirmed in time; ${at}, and send it again if it has not happened`,
    reservation_id: r.reservationId,
  };
}

/** Changes an active reservation's quantity or window through its workflow and returns it. */
export async function changeReservation(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'config'>,
  r: Ref,
  change: ReservationChangeArgs,
): Promise<ReservationView> {
  await requireActive(deps, r);
  if (change.end_date && change.end_date < utcDay())
    throw invalidField('end_date', 'end_date must not be in the past; DELETE ends a reservation now');
  const handle = deps.temporal.workflow.getHandle(reservationWorkflowId(r.reservationId));
  await updateWithinDeadline(
    deps,
    (waitForStage) => handle.startUpdate(changeReservationUpdate, { args: [change], waitForStage }),
    lateChange(r, 'change'),
    'the reservation has ended',
  );
  return getReservation(deps, r);
}

/** Cancels an active reservation: what is left of the hold returns to general stock; the record stays. */
export async function cancelReservation(deps: Pick<ServiceDeps, 'db' | 'temporal' | 'config'>, r: Ref): Promise<void> {
  await requireActive(deps, r);
  const handle = deps.temporal.workflow.getHandle(reservationWorkflowId(r.reservationId));
  await updateWithinDeadline(
    deps,
    (waitForStage) => handle.startUpdate(cancelReservationUpdate, { waitForStage }),
    lateChange(r, 'cancellation'),
    'the reservation has ended',
  );
}
