import { WithStartWorkflowOperation } from '@temporalio/client';
import { newId } from '../../../store/ids';
import { heldUpdate, RESERVATION_WORKFLOW_TYPE, type ReservationWindowInput } from '../../../workflows/reservation-window-messages';
import { reservationWorkflowId } from '../../../workflows/shared/ids';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';

describe('reservation-window workflow', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(() => h.close());

  it('expires at the end of end_date (a timer) and returns what is left to general stock', async () => {
    const subClient = (await h.client('submission')).clientId;
    const { clientId } = await h.client('distribution', { reservations: true });
    const offerId = await seedOffer(h, subClient, { initial_quantity: 5 });
    const accountId = newId('acc');
    await h.services.db
      .insertInto('accounts')
      .values({ id: accountId, client_id: clientId, name: 'Timer test', website_url: null, status: 'active' })
      .execute();
    const reservationId = newId('rsv');
    // The API refuses a past end_date; started directly, the window is already over, so the timer fires at once.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const input: ReservationWindowInput = {
      hold: { reservationId, clientId, offerId, accountId, quantity: 3, startDate: yesterday, endDate: yesterday },
    };
    const workflowId = reservationWorkflowId(reservationId);
    const held = await h.services.temporal.workflow.executeUpdateWithStart(heldUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation(RESERVATION_WORKFLOW_TYPE, {
        workflowId,
        taskQueue: h.config.TEMPORAL_TASK_QUEUE,
        args: [input],
        workflowIdConflictPolicy: 'FAIL',
      }),
    });
    expect(held.ok).toBe(true);
    expect(await h.services.temporal.workflow.getHandle(workflowId).result()).toEqual({ status: 'expired' });
    const row = await h.services.db.selectFrom('reservations').selectAll().where('id', '=', reservationId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'expired', quantity_in_stock: 0, quantity_reserved: 3 });
    const offer = await h.services.db
      .selectFrom('offers')
      .select(['quantity_in_stock', 'reserved_quantity'])
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow();
    expect(offer).toEqual({ quantity_in_stock: 5, reserved_quantity: 0 });
  });
});
