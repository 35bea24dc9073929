import { z } from 'zod';
import { reservationsEnabled } from '../../../services/api-clients';
import { cancelReservation, changeReservation, getReservation, holdReservation, listReservations } from '../../../services/reservations';
import { ApiError } from '../../errors';
import { keyedRequestOf } from '../../plugins/idempotency';
import { IdParam, IdParams } from '../../../schemas/common';
import { deadlineResponses, listReply, OkOnly, okReply, okOnlyReply } from '../../../schemas/envelope';
import {
  ReservationCreateBody,
  ReservationList,
  ReservationListQuery,
  ReservationResponse,
  ReservationUpdateBody,
} from '../../../schemas/reservation';
import { operations, type RoutePlugin } from '../operation';

const Params = z.object({ id: IdParam, reservation_id: IdParam });
const ref = (clientId: string, p: z.infer<typeof Params>) => ({ clientId, offerId: p.id, reservationId: p.reservation_id });

const op = operations('Reservations');

/**
 * Reservations of an offer's units for one account, each held by a reservation-window workflow.
 * Only clients an operator enabled (`admin clients reservations <id> on`) may use them.
 */
export const reservationRoutes: RoutePlugin = async (app, { deps }) => {
  // Hooks of this plugin apply to its routes only (Fastify encapsulation), after the key check.
  // The flag is read now, not from the key's (cached) client row: an operator's switch counts at once.
  app.addHook('onRequest', async (request) => {
    if (!(await reservationsEnabled(deps, request.client.id))) {
      throw new ApiError(403, 'forbidden', 'reservations are not enabled for this client; ask the service team to enable them');
    }
  });

  app.post(
    '/offers/:id/reservations',
    op('createReservation', 'Reserve units of an offer for an account', {
      params: IdParams,
      body: ReservationCreateBody,
      response: { 200: ReservationResponse, ...deadlineResponses() },
    }),
    // The keyed request names the hold: a retry after a 503 (a 5xx is not replayed) finds the first one.
    async (request) =>
      okReply(
        'reservation',
        await holdReservation(deps, request.client.id, request.params.id, request.body.reservation, keyedRequestOf(request)),
      ),
  );

  app.get(
    '/offers/:id/reservations',
    op('listReservations', "List an offer's reservations", {
      params: IdParams,
      querystring: ReservationListQuery,
      response: { 200: ReservationList },
    }),
    async (request) =>
      listReply('reservations', await listReservations(deps, request.client.id, request.params.id, request.query), request.query),
  );

  app.get(
    '/offers/:id/reservations/:reservation_id',
    op('getReservation', 'Get one reservation', { params: Params, response: { 200: ReservationResponse } }),
    async (request) => okReply('reservation', await getReservation(deps, ref(request.client.id, request.params))),
  );

  app.put(
    '/offers/:id/reservations/:reservation_id',
    op('updateReservation', 'Change or extend a reservation', {
      params: Params,
      body: ReservationUpdateBody,
      response: { 200: ReservationResponse, ...deadlineResponses() },
    }),
    async (request) =>
      okReply('reservation', await changeReservation(deps, ref(request.client.id, request.params), request.body.reservation)),
  );

  // DELETE cancels: what is left of the hold returns to general stock; the record stays readable.
  app.delete(
    '/offers/:id/reservations/:reservation_id',
    op('cancelReservation', 'Cancel a reservation', { params: Params, response: { 200: OkOnly, ...deadlineResponses() } }),
    (request) => okOnlyReply(cancelReservation(deps, ref(request.client.id, request.params))),
  );
};
