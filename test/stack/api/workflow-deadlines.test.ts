import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { utcDay } from '../../../domain/dates';
import { createHarness, type Harness } from '../../setup/harness';
import { seedOffer, validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { DIST, SUB } from '../../setup/paths';

/*
 * Every route that waits for a workflow answers within WORKFLOW_ANSWER_TIMEOUT_SECONDS, with a
 * stuck workflow behind it (docs/errors.md#answers-past-the-deadline). Two ways to be stuck:
 * a step whose activity blocks (the test holds the row it writes under FOR UPDATE): the workflow
 * accepts the change, so 202 accepted_pending, and the change lands once the row is free; and no
 * worker at all: nothing accepts the change, so 503 backend_unavailable with Retry-After.
 */

const DEADLINE_SECONDS = 2;
/** Generous: the deadline plus a few seconds for the answer to be written, on a busy machine. */
const ANSWER_WITHIN_MS = (DEADLINE_SECONDS + 5) * 1000;
const OPS_USERNAME = 'reviewer-deadline';
const OPS_PASSWORD = 'a patient reviewer waits';
const OPS_AUTH = `Basic ${Buffer.from(`${OPS_USERNAME}:${OPS_PASSWORD}`).toString('base64')}`;
// light-my-request's default Host; the console's own origin as a browser would send it.
const ORIGIN = 'http://localhost:80';

describe('routes that wait for a workflow, with the workflow stuck', () => {
  let h: Harness;
  let subKey: string;
  let subClient: string;
  let distKey: string;
  const held: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    h = await createHarness({
      worker: true,
      env: { WORKFLOW_ANSWER_TIMEOUT_SECONDS: String(DEADLINE_SECONDS) },
    });
    await h.operator(OPS_USERNAME, OPS_PASSWORD);
    ({ key: subKey, clientId: subClient } = await h.client('submission'));
    distKey = await h.key('distribution', { reservations: true });
  });
  // Frees the rows a test held, so its accepted changes land before the next test (and shutdown).
  afterEach(async () => {
    for (const release of held.splice(0)) await release();
  });
  afterAll(() => h.close());

  const sub = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    h.app.inject({ method, url: `${SUB}${url}`, headers: { 'x-service-api-key': subKey }, ...(payload ? { payload } : {}) });
  const dist = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    h.app.inject({ method, url: `${DIST}${url}`, headers: { 'x-service-api-key': distKey }, ...(payload ? { payload } : {}) });

  /** Holds a row under FOR UPDATE in a transaction of its own until the test ends: the step that writes it blocks. */
  async function holdRow(table: 'offers' | 'orders', id: string): Promise<void> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const tx = h.services.db.transaction().execute(async (trx) => {
      await sql`select 1 from ${sql.table(table)} where id = ${id} for update`.execute(trx);
      locked();
      await released;
    });
    await Promise.race([isLocked, tx]);
    held.push(async () => {
      release();
      await tx;
    });
  }

  /** Sends a request and returns its answer and how long it took. */
  async function timed(send: () => Promise<LightMyRequestResponse>): Promise<{ res: LightMyRequestResponse; ms: number }> {
    const started = Date.now();
    const res = await send();
    return { res, ms: Date.now() - started };
  }

  /** 202 accepted_pending within the deadline, naming the resource and where to look, with Retry-After. */
  function expectAccepted({ res, ms }: { res: LightMyRequestResponse; ms: number }, facts: Record<string, string>, lookAt: string) {
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    expect(res.statusCode).toBe(202);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({
      status: 'ACCEPTED',
      code: 'accepted_pending',
      message: expect.stringContaining(lookAt),
      ...facts,
      request_id: expect.any(String),
    });
  }

  /** 503 backend_unavailable within the deadline, naming the resource and where to look, with Retry-After. */
  function expectUnconfirmed({ res, ms }: { res: LightMyRequestResponse; ms: number }, facts: Record<string, string>, lookAt: string) {
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({
      status: 'ERROR',
      errors: [{ code: 'backend_unavailable', message: expect.stringContaining(lookAt), ...facts }],
    });
  }

  /** An offer created through the API (its review workflow running), moved to `status` if given. */
  async function offerWithWorkflow(status?: 'withdrawn'): Promise<string> {
    const created = await sub('POST', '/offers', { offer: validOffer() });
    expect(created.statusCode).toBe(200);
    const id = created.json().offer.id as string;
    if (status) expect((await sub('PUT', `/offers/${id}`, { offer: { status } })).statusCode).toBe(200);
    return id;
  }

  async function activeAccount(): Promise<string> {
    const created = await dist('POST', '/accounts', { account: { name: 'Deadline Blog', website_url: 'https://deadline.example' } });
    const id = created.json().account.id as string;
    expect((await dist('PUT', `/accounts/${id}`, { account: { status: 'active' } })).statusCode).toBe(200);
    return id;
  }

  async function reservation(offerId: string, accountId: string): Promise<string> {
    const res = await dist('POST', `/offers/${offerId}/reservations`, {
      reservation: { account_id: accountId, quantity_reserved: 2, start_date: utcDay(), end_date: '2099-01-01' },
    });
    expect(res.statusCode).toBe(200);
    return res.json().reservation.id as string;
  }

  async function order(offerId: string, orderNumber: string) {
    return dist('POST', '/orders', {
      order: { order_number: orderNumber, customer_name: 'Grace Hopper', items: [{ offer_id: offerId, quantity: 1 }] },
    });
  }

  describe('a step that blocks: the change is accepted (202) and lands later', () => {
    it('PUT /offers/:id, a status move', async () => {
      const id = await offerWithWorkflow();
      await holdRow('offers', id);
      const answer = await timed(() => sub('PUT', `/offers/${id}`, { offer: { status: 'withdrawn' } }));
      expectAccepted(answer, { offer_id: id }, `GET /offers/${id}`);
      await held.splice(0)[0]();
      await waitForOfferStatus(h, id, 'withdrawn');
    });

    it('PUT /offers/:id, an edit', async () => {
      const id = await offerWithWorkflow('withdrawn');
      await holdRow('offers', id);
      const answer = await timed(() => sub('PUT', `/offers/${id}`, { offer: { title: 'Three-course dinner for two' } }));
      expectAccepted(answer, { offer_id: id }, `GET /offers/${id}`);
      await held.splice(0)[0]();
      await eventually(
        'the edit to land',
        async () => (await sub('GET', `/offers/${id}`)).json().offer.title === 'Three-course dinner for two',
      );
    });

    it('DELETE /offers/:id, and the same answer in XML', async () => {
      const id = await offerWithWorkflow();
      await holdRow('offers', id);
      expectAccepted(await timed(() => sub('DELETE', `/offers/${id}`)), { offer_id: id }, `GET /offers/${id}`);
      const xml = await timed(() => sub('DELETE', `/offers/${id}.xml`));
      expect(xml.ms).toBeLessThan(ANSWER_WITHIN_MS);
      expect(xml.res.statusCode).toBe(202);
      expect(xml.res.body).toContain('<status>ACCEPTED</status><code>accepted_pending</code>');
      expect(xml.res.body).toContain(`<offer_id>${id}</offer_id>`);
      await held.splice(0)[0]();
      await waitForOfferStatus(h, id, 'cancelled');
    });

    it('POST /offers/:id/reservations, PUT and DELETE a reservation', async () => {
      const offerId = await seedOffer(h, subClient, { initial_quantity: 20 });
      const accountId = await activeAccount();
      const reservationId = await reservation(offerId, accountId);
      const at = `GET /offers/${offerId}/reservations/${reservationId}`;
      await holdRow('offers', offerId); // every reservation step locks its offer's stock
      // Sent with an Idempotency-Key: an accepted 202 is kept, so its retry names the same reservation.
      const hold = () =>
        h.app.inject({
          method: 'POST',
          url: `${DIST}/offers/${offerId}/reservations`,
          headers: { 'x-service-api-key': distKey, 'idempotency-key': `deadline-hold-${offerId}` },
          payload: { reservation: { account_id: accountId, quantity_reserved: 1, start_date: utcDay(), end_date: '2099-01-01' } },
        });
      const made = await timed(hold);
      expect(made.res.statusCode).toBe(202);
      const madeId = made.res.json().reservation_id as string;
      expect(madeId).toMatch(/^rsv_/);
      expectAccepted(made, { reservation_id: madeId }, `GET /offers/${offerId}/reservations/${madeId}`);
      const retried = await hold();
      expect(retried.statusCode).toBe(202);
      expect(retried.headers['idempotent-replayed']).toBe('true');
      expect(retried.body).toBe(made.res.body);
      const changed = await timed(() =>
        dist('PUT', `/offers/${offerId}/reservations/${reservationId}`, { reservation: { quantity_reserved: 3 } }),
      );
      expectAccepted(changed, { reservation_id: reservationId }, at);
      expectAccepted(
        await timed(() => dist('DELETE', `/offers/${offerId}/reservations/${reservationId}`)),
        { reservation_id: reservationId },
        at,
      );
      await held.splice(0)[0]();
      // What was accepted lands: the new reservation is held, the change then the cancellation applied.
      await eventually('the accepted reservation changes to land', async () => {
        const [made, cancelled] = await Promise.all([
          dist('GET', `/offers/${offerId}/reservations/${madeId}`),
          dist('GET', `/offers/${offerId}/reservations/${reservationId}`),
        ]);
        return (
          made.statusCode === 200 && made.json().reservation.status === 'active' && cancelled.json().reservation.status === 'cancelled'
        );
      });
    });

    it('POST /orders answers 503 with the order id (a retry of the same order_number is safe)', async () => {
      const offerId = await seedOffer(h, subClient, { initial_quantity: 5 });
      await holdRow('offers', offerId);
      const answer = await timed(() => order(offerId, 'deadline-place-1'));
      expect(answer.res.statusCode).toBe(503);
      const orderId = answer.res.json().errors[0].order_id as string;
      expectUnconfirmed(answer, { order_id: orderId }, `GET /orders/${orderId}`);
      await held.splice(0)[0]();
      await eventually('the order to be placed', async () => (await dist('GET', `/orders/${orderId}`)).statusCode === 200);
    });

    it('PUT /orders/:id (cancel): 202 once its workflow accepted it, else 503; either way it is cancelled later', async () => {
      const offerId = await seedOffer(h, subClient, { initial_quantity: 5 });
      const placed = await order(offerId, 'deadline-cancel-1');
      expect(placed.statusCode).toBe(200);
      const orderId = placed.json().order.id as string;
      await holdRow('orders', orderId);
      const answer = await timed(() => dist('PUT', `/orders/${orderId}`, { order: { status: 'cancelled' } }));
      // Cancelling is a local activity in the workflow's first task, so the acceptance travels with
      // that task's completion: whether it arrives before the deadline is the SDK's timing.
      if (answer.res.statusCode === 202) expectAccepted(answer, { order_id: orderId }, `GET /orders/${orderId}`);
      else expectUnconfirmed(answer, { order_id: orderId }, `GET /orders/${orderId}`);
      await held.splice(0)[0]();
      await eventually(
        'the order to be cancelled',
        async () => (await dist('GET', `/orders/${orderId}`)).json().order.status === 'cancelled',
      );
    });

    it('POST /ops/offers/:id/approve redirects within the deadline to a page saying it is not recorded yet', async () => {
      const id = await offerWithWorkflow();
      await holdRow('offers', id);
      const { res, ms } = await timed(() =>
        h.app.inject({
          method: 'POST',
          url: `/ops/offers/${id}/approve`,
          headers: { authorization: OPS_AUTH, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
          payload: '',
        }),
      );
      expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe(`/ops/offers/${id}?sent=approve`);
      const page = await h.app.inject({ method: 'GET', url: res.headers.location as string, headers: { authorization: OPS_AUTH } });
      expect(page.body).toContain('the workflow has not recorded it yet');
      await held.splice(0)[0]();
      await waitForOfferStatus(h, id, 'approved');
    });
  });

  describe('no worker: nothing accepts the change (503)', () => {
    let offerId: string;
    let reservedOffer: string;
    let reservationId: string;
    let orderId: string;
    beforeAll(async () => {
      offerId = await offerWithWorkflow();
      reservedOffer = await seedOffer(h, subClient, { initial_quantity: 10 });
      reservationId = await reservation(reservedOffer, await activeAccount());
      const placed = await order(reservedOffer, 'deadline-noworker-1');
      expect(placed.statusCode).toBe(200);
      orderId = placed.json().order.id;
      await h.worker!.shutdown();
      h.worker = undefined;
    });

    it('PUT and DELETE /offers/:id', async () => {
      const look = `GET /offers/${offerId}`;
      expectUnconfirmed(
        await timed(() => sub('PUT', `/offers/${offerId}`, { offer: { status: 'withdrawn' } })),
        { offer_id: offerId },
        look,
      );
      expectUnconfirmed(await timed(() => sub('DELETE', `/offers/${offerId}`)), { offer_id: offerId }, look);
      expect((await sub('GET', `/offers/${offerId}`)).json().offer.status).toBe('pending');
    });

    it('POST, PUT and DELETE reservations', async () => {
      const at = `GET /offers/${reservedOffer}/reservations/${reservationId}`;
      const accountId = (await dist('GET', `/offers/${reservedOffer}/reservations/${reservationId}`)).json().reservation.account_id;
      const made = await timed(() =>
        dist('POST', `/offers/${reservedOffer}/reservations`, {
          reservation: { account_id: accountId, quantity_reserved: 1, start_date: utcDay(), end_date: '2099-01-01' },
        }),
      );
      const madeId = made.res.json().errors?.[0]?.reservation_id as string;
      expectUnconfirmed(made, { reservation_id: madeId }, `GET /offers/${reservedOffer}/reservations/${madeId}`);
      const changed = await timed(() =>
        dist('PUT', `/offers/${reservedOffer}/reservations/${reservationId}`, { reservation: { quantity_reserved: 1 } }),
      );
      expectUnconfirmed(changed, { reservation_id: reservationId }, at);
      expectUnconfirmed(
        await timed(() => dist('DELETE', `/offers/${reservedOffer}/reservations/${reservationId}`)),
        { reservation_id: reservationId },
        at,
      );
    });

    it('POST /orders and PUT /orders/:id (cancel)', async () => {
      const placing = await timed(() => order(reservedOffer, 'deadline-noworker-2'));
      const placingId = placing.res.json().errors?.[0]?.order_id as string;
      expectUnconfirmed(placing, { order_id: placingId }, `GET /orders/${placingId}`);
      const cancelling = await timed(() => dist('PUT', `/orders/${orderId}`, { order: { status: 'cancelled' } }));
      expectUnconfirmed(cancelling, { order_id: orderId }, `GET /orders/${orderId}`);
    });

    it('POST /ops/offers/:id/reject: the signal is delivered, the page says it is not recorded yet', async () => {
      const { res, ms } = await timed(() =>
        h.app.inject({
          method: 'POST',
          url: `/ops/offers/${offerId}/reject`,
          headers: { authorization: OPS_AUTH, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ reason: 'Blurry images' }).toString(),
        }),
      );
      expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
      expect(res.statusCode).toBe(303);
      const page = await h.app.inject({ method: 'GET', url: res.headers.location as string, headers: { authorization: OPS_AUTH } });
      expect(page.body).toContain('the workflow has not recorded it yet');
    });
  });
});
