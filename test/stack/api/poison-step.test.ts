import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import type { OfferDocument } from '../../../domain/offer';
import { updateFailure } from '../../../services/workflow-outcomes';
import { editOfferUpdate } from '../../../workflows/offer-review-messages';
import { offerReviewWorkflowId, reservationWorkflowId } from '../../../workflows/shared/ids';
import { Failure } from '../../../domain/failures';
import { cancelReservation, changeReservation, getReservation } from '../../../services/reservations';
import { newId } from '../../../store/ids';
import { heldUpdate, RESERVATION_WORKFLOW_TYPE, type ReservationWindowInput } from '../../../workflows/reservation-window-messages';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';

/*
 * Issue 19: an edit whose date Postgres refuses was retried forever and froze its offer. Now the
 * worker fails that step for good with the refusal (worker/activity-failures.ts), the review
 * workflow answers it and goes on, and the offer stays as it was. The edit is sent to the
 * workflow directly, as a value the API's schemas no longer let through would arrive from a
 * client of older code: the path under test is the step's, not the schema's.
 */
describe('a workflow step Postgres refuses', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    key = await h.key('submission');
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    h.app.inject({
      method,
      url: `${SUB}${url}`,
      headers: { 'x-service-api-key': key },
      ...(body === undefined ? {} : { payload: body as object }),
    });

  it('answers a refused edit of a withdrawn offer at once with the refusal, and the offer stays usable', async () => {
    const created = await call('POST', '/offers', { offer: validOffer() });
    expect(created.statusCode).toBe(200);
    const id: string = created.json().offer.id;
    expect((await call('PUT', `/offers/${id}`, { offer: { status: 'withdrawn' } })).statusCode).toBe(200);
    const before = (await call('GET', `/offers/${id}`)).json().offer;

    const row = await h.services.db.selectFrom('offers').select('document').where('id', '=', id).executeTakeFirstOrThrow();
    const input = { ...(row.document as OfferDocument), start_date: '0000-01-01' };
    const started = Date.now();
    const err = await h.services.temporal.workflow
      .getHandle(offerReviewWorkflowId(id))
      .executeUpdate(editOfferUpdate, { args: [{ input, changedFields: ['start_date'] }] })
      .catch((e: unknown) => e);
    // One attempt, no retries: well within a request's patience.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    // The answer the API gives for it (api/errors.ts maps invalid_field to 422).
    expect(updateFailure(err, 'ended')).toMatchObject({ code: 'invalid_field', details: [expect.objectContaining({ sqlstate: '22008' })] });

    expect((await call('GET', `/offers/${id}`)).json().offer).toEqual(before);
    const cancelled = await call('PUT', `/offers/${id}`, { offer: { status: 'cancelled' } });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().offer.status).toBe('cancelled');
  }, 60_000);

  it('answers a PUT with a year Postgres cannot store with a 4xx, quickly, and a later status change works', async () => {
    const id: string = (await call('POST', '/offers', { offer: validOffer() })).json().offer.id;
    expect((await call('PUT', `/offers/${id}`, { offer: { status: 'withdrawn' } })).statusCode).toBe(200);
    const started = Date.now();
    const res = await call('PUT', `/offers/${id}`, { offer: { start_date: '0000-01-01' } });
    expect(Date.now() - started).toBeLessThan(10_000);
    // 422 naming the field: from the schema once it bounds years, from the refused step before.
    expect(res.statusCode).toBe(422);
    expect((await call('PUT', `/offers/${id}`, { offer: { status: 'cancelled' } })).json().offer.status).toBe('cancelled');
  }, 60_000);

  describe('a reservation', () => {
    const yearZero = '0000-01-01';
    const setUp = async () => {
      const subClient = (await h.client('submission')).clientId;
      const { clientId } = await h.client('distribution', { reservations: true });
      const offerId = await seedOffer(h, subClient, { initial_quantity: 5 });
      const accountId = newId('acc');
      await h.services.db
        .insertInto('accounts')
        .values({ id: accountId, client_id: clientId, name: 'Poison test', website_url: null, status: 'active' })
        .execute();
      return { clientId, offerId, accountId };
    };
    const hold = (input: ReservationWindowInput) =>
      h.services.temporal.workflow.executeUpdateWithStart(heldUpdate, {
        startWorkflowOperation: new WithStartWorkflowOperation(RESERVATION_WORKFLOW_TYPE, {
          workflowId: reservationWorkflowId(input.hold.reservationId),
          taskQueue: h.config.TEMPORAL_TASK_QUEUE,
          args: [input],
          workflowIdConflictPolicy: 'FAIL',
        }),
      });
    const offerStock = (offerId: string) =>
      h.services.db
        .selectFrom('offers')
        .select(['quantity_in_stock', 'reserved_quantity'])
        .where('id', '=', offerId)
        .executeTakeFirstOrThrow();

    it('whose hold Postgres refuses is refused at once and holds nothing', async () => {
      const { clientId, offerId, accountId } = await setUp();
      const reservationId = newId('rsv');
      const started = Date.now();
      const held = await hold({
        hold: { reservationId, clientId, offerId, accountId, quantity: 3, startDate: yearZero, endDate: '2099-01-01' },
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(held).toMatchObject({ ok: false, code: 'invalid_field', sqlstate: '22008' });
      const row = await h.services.db.selectFrom('reservations').select('id').where('id', '=', reservationId).executeTakeFirst();
      expect(row).toBeUndefined();
      expect(await offerStock(offerId)).toEqual({ quantity_in_stock: 5, reserved_quantity: 0 });
    }, 60_000);

    it('whose change Postgres refuses answers the refusal, stays as it was, and is cancelled afterwards', async () => {
      const { clientId, offerId, accountId } = await setUp();
      const reservationId = newId('rsv');
      const ref = { clientId, offerId, reservationId };
      expect(
        (await hold({ hold: { reservationId, clientId, offerId, accountId, quantity: 3, startDate: '2026-01-01', endDate: '2099-01-01' } }))
          .ok,
      ).toBe(true);
      const started = Date.now();
      const err = await changeReservation(h.services, ref, { start_date: yearZero }).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(err).toBeInstanceOf(Failure);
      expect((err as Failure).details[0]).toMatchObject({ code: 'invalid_field', sqlstate: '22008' });
      expect(await getReservation(h.services, ref)).toMatchObject({ status: 'active', start_date: '2026-01-01', quantity_reserved: 3 });
      await cancelReservation(h.services, ref);
      expect(await getReservation(h.services, ref)).toMatchObject({ status: 'cancelled' });
      expect(await offerStock(offerId)).toEqual({ quantity_in_stock: 5, reserved_quantity: 0 });
    }, 60_000);
  });
});
