import { WithStartWorkflowOperation } from '@temporalio/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { newId } from '../../../store/ids';
import { utcDay } from '../../../domain/dates';
import {
  cancelReservationUpdate,
  changeReservationUpdate,
  heldUpdate,
  RESERVATION_WORKFLOW_TYPE,
  type ReservationWindowInput,
} from '../../../workflows/reservation-messages';
import { reservationWorkflowId } from '../../../workflows/shared/ids';
import type { ServiceDeps } from '../../../services/deps';
import { ApiError, conflict, invalidField, notFound } from '../../errors';
import { findAccount } from '../../../store/accounts';
import { findReservation, listReservations, toReservation } from '../../../store/reservations-queries';
import { IdParam } from '../../../schemas/common';
import { OkOnly } from '../../../schemas/envelope';
import {
  ReservationCreateBody,
  ReservationList,
  ReservationListQuery,
  ReservationResponse,
  ReservationUpdateBody,
} from '../../../schemas/reservation';
import { updateFailure, withinDeadline } from '../../../services/workflow-outcomes';
import { refusalFailure } from '../../../domain/failures';

const OfferParams = z.object({ id: IdParam });
const Params = z.object({ id: IdParam, reservation_id: IdParam });

/**
 * Reservations of an offer's units for one account, each held by a reservation-window workflow.
 * Only clients an operator enabled (`admin clients reservations <id> on`) may use them.
 */
export const reservationRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const { db, temporal, config } = deps;

  // Hooks of this plugin apply to its routes only (Fastify encapsulation), after the key check.
  app.addHook('onRequest', async (request) => {
    if (!request.client.reservations_enabled) {
      throw new ApiError(403, 'forbidden', 'reservations are not enabled for this client; ask the service team to enable them');
    }
  });

  const mine = async (clientId: string, offerId: string, id: string) =>
    (await findReservation(db, clientId, offerId, id)) ?? Promise.reject(notFound('reservation'));
  const active = (r: { status: string }) => {
    if (r.status !== 'active') throw conflict('invalid_state_transition', `the reservation is ${r.status}`);
  };

  /** Starts the reservation's workflow with the `held` Update; answers once the units are held or refused. */
  async function hold(clientId: string, offerId: string, r: z.infer<typeof ReservationCreateBody>['reservation']) {
    if (r.end_date < utcDay()) throw invalidField('end_date', 'end_date must not be in the past');
    if (!(await db.selectFrom('offers').select('id').where('id', '=', offerId).executeTakeFirst())) throw notFound('offer');
    const account = await findAccount(db, clientId, r.account_id);
    if (account?.status !== 'active')
      throw invalidField(
        'account_id',
        account ? `account ${r.account_id} is ${account.status}, not active` : `account ${r.account_id} not found`,
      );
    const reservationId = newId('rsv');
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
      workflowIdConflictPolicy: 'FAIL',
    });
    const held = await withinDeadline(
      temporal.workflow.executeUpdateWithStart(heldUpdate, { startWorkflowOperation }),
      config.WORKFLOW_ANSWER_TIMEOUT_SECONDS,
      {
        message: `reservation ${reservationId} is still being made; GET /offers/${offerId}/reservations/${reservationId} shortly`,
        reservation_id: reservationId,
      },
    );
    if (!held.ok) throw refusalFailure(held);
    return reservationId;
  }

  app.post(
    '/offers/:id/reservations',
    { schema: { params: OfferParams, body: ReservationCreateBody, response: { 200: ReservationResponse } } },
    async (request) => {
      const reservationId = await hold(request.client.id, request.params.id, request.body.reservation);
      return { status: 'OK' as const, reservation: toReservation(await mine(request.client.id, request.params.id, reservationId)) };
    },
  );

  app.get(
    '/offers/:id/reservations',
    { schema: { params: OfferParams, querystring: ReservationListQuery, response: { 200: ReservationList } } },
    async (request) => {
      const { rows, total } = await listReservations(db, request.client.id, request.params.id, request.query);
      return { status: 'OK' as const, reservations: rows, page: request.query.page, per_page: request.query.per_page, total };
    },
  );

  app.get(
    '/offers/:id/reservations/:reservation_id',
    { schema: { params: Params, response: { 200: ReservationResponse } } },
    async (request) => ({
      status: 'OK' as const,
      reservation: toReservation(await mine(request.client.id, request.params.id, request.params.reservation_id)),
    }),
  );

  app.put(
    '/offers/:id/reservations/:reservation_id',
    { schema: { params: Params, body: ReservationUpdateBody, response: { 200: ReservationResponse } } },
    async (request) => {
      const { id, reservation_id } = request.params;
      active(await mine(request.client.id, id, reservation_id));
      const { end_date } = request.body.reservation;
      if (end_date && end_date < utcDay())
        throw invalidField('end_date', 'end_date must not be in the past; DELETE ends a reservation now');
      await temporal.workflow
        .getHandle(reservationWorkflowId(reservation_id))
        .executeUpdate(changeReservationUpdate, { args: [request.body.reservation] })
        .catch((err) => Promise.reject(updateFailure(err, 'the reservation has ended')));
      return { status: 'OK' as const, reservation: toReservation(await mine(request.client.id, id, reservation_id)) };
    },
  );

  // DELETE cancels: what is left of the hold returns to general stock; the record stays readable.
  app.delete('/offers/:id/reservations/:reservation_id', { schema: { params: Params, response: { 200: OkOnly } } }, async (request) => {
    const { id, reservation_id } = request.params;
    active(await mine(request.client.id, id, reservation_id));
    await temporal.workflow
      .getHandle(reservationWorkflowId(reservation_id))
      .executeUpdate(cancelReservationUpdate)
      .catch((err) => Promise.reject(updateFailure(err, 'the reservation has ended')));
    return { status: 'OK' as const };
  });
};
