import { Webhook } from 'standardwebhooks';
import { setEndpoint } from '../../../store/callback-endpoints';
import { changeOfferStatus } from '../../../store/offers';
import { OFFER_REVIEW_WORKFLOW_TYPE, type OfferReviewWorkflow } from '../../../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../../../workflows/shared/ids';
import { admin, adminJson } from '../../setup/admin';
import { CallbackReceiver } from '../../setup/callback-receiver';
import { eventually } from '../../setup/eventually';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';

/** The delivered-callbacks counter as /metrics shows it. */
async function scrapeDelivered(h: Harness): Promise<number> {
  const body = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(/callback_delivery_attempts_total\{outcome="delivered"\} (\d+)/.exec(body)?.[1] ?? 0);
}

/** This client's deliveries of the offer's events, once every event is dispatched and every delivery recorded as delivered. */
async function settledDeliveries(h: Harness, clientId: string, offerId: string) {
  const undispatched = await h.services.db
    .selectFrom('offer_events')
    .select('id')
    .where('offer_id', '=', offerId)
    .where('dispatched_at', 'is', null)
    .execute();
  const rows = await h.services.db
    .selectFrom('callback_deliveries as d')
    .innerJoin('callback_endpoints as e', 'e.id', 'd.endpoint_id')
    .select(['d.type', 'd.status', 'd.leased_until'])
    .where('e.client_id', '=', clientId)
    .where('d.offer_id', '=', offerId)
    .orderBy('d.sequence')
    .execute();
  return undispatched.length === 0 && rows.every((d) => d.status === 'delivered' && d.leased_until === null) && rows;
}

describe('offer-change callbacks', () => {
  let h: Harness;
  const receivers: CallbackReceiver[] = [];
  const deliveredCount = () => scrapeDelivered(h);
  const cli = (args: string[]) => admin(args, { ...process.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE });

  beforeAll(async () => {
    // Short waits, but enough of them that a receiver kept down across a few slow CLI calls has not been given up on.
    h = await createHarness({
      worker: true,
      fixed: { CALLBACK_RETRY_SCHEDULE: [1, 2, 2, 2, 5, 5, 5, 5, 5, 5], CALLBACK_TIMEOUT_SECONDS: 5 },
    });
  });
  afterAll(async () => {
    // Leave no endpoint behind for later test files to dispatch to.
    await h.services.db.updateTable('callback_endpoints').set({ status: 'disabled', disabled_reason: 'test over' }).execute();
    await Promise.all(receivers.map((r) => r.stop()));
    await h.close();
  });

  it('retries 500, 500, 200 with the same event id and a valid Standard Webhooks signature; the log shows 3 attempts', async () => {
    const key = await h.key('submission');
    const created = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers`,
      headers: { 'x-service-api-key': key },
      payload: { offer: validOffer() },
    });
    const offerId: string = created.json().offer.id;
    const receiver = await new CallbackReceiver([500, 500, 200]).start();
    receivers.push(receiver);
    const set = adminJson(await cli(['callbacks', 'set', '--key', key, '--url', receiver.url, '--json']));
    expect(set.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    // The operator approves, as documented; the review workflow records it and the event goes out.
    const deliveredBefore = await deliveredCount();
    expect(adminJson(await cli(['offers', 'approve', offerId, '--reviewer', 'Ops']))).toEqual({ id: offerId, status: 'approved' });
    const got = await receiver.waitFor(3);
    const event = await h.services.db
      .selectFrom('offer_events')
      .selectAll()
      .where('offer_id', '=', offerId)
      .where('type', '=', 'offer.status_changed')
      .executeTakeFirstOrThrow();

    const verifier = new Webhook(set.secret);
    for (const r of got) {
      expect(r.headers['webhook-id']).toBe(event.id);
      expect(() => verifier.verify(r.body, r.headers)).not.toThrow();
      expect(r.headers['content-type']).toBe('application/json');
    }
    expect(new Set(got.map((r) => r.body)).size).toBe(1); // same body on every attempt
    expect(Object.keys(got[0].json)).toEqual(['id', 'type', 'created_at', 'sequence', 'data']);
    const payload = got[2].json;
    expect(payload).toMatchObject({
      id: event.id,
      type: 'offer.status_changed',
      sequence: event.sequence,
      data: { old_status: 'pending', new_status: 'approved' },
    });
    expect(payload.data.offer).toMatchObject({ id: offerId, status: 'approved', title: 'Two-course dinner for two' });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got[0].body, got[0].headers)).toThrow();

    const [last] = await eventually('the delivery logged as delivered', async () => {
      const log = adminJson(await cli(['callbacks', 'log', '--key', key]));
      return log[0]?.status === 'delivered' ? log : null;
    });
    expect(last).toMatchObject({ event_id: event.id, attempts: 3, last_status_code: 200, status: 'delivered', next_attempt_at: null });
    const attempts = await h.services.db
      .selectFrom('callback_attempts')
      .select(['attempt', 'status_code'])
      .where('delivery_id', '=', last.id)
      .orderBy('attempt')
      .execute();
    expect(attempts).toEqual([
      { attempt: 1, status_code: 500 },
      { attempt: 2, status_code: 500 },
      { attempt: 3, status_code: 200 },
    ]);
    expect(adminJson(await cli(['callbacks', 'show', '--key', key]))).toMatchObject({
      status: 'enabled',
      consecutive_failures: 0,
      url: receiver.url,
    });
    expect(await deliveredCount()).toBeGreaterThanOrEqual(deliveredBefore + 1); // /metrics moved
  });

  it('a receiver that is down while three changes happen gets all three, in order, once back', async () => {
    const { key, clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId); // approved
    const receiver = await new CallbackReceiver().start();
    receivers.push(receiver);
    adminJson(await cli(['callbacks', 'set', '--key', key, '--url', receiver.url, '--json']));
    await receiver.stop();

    const moves = ['suspended', 'resumed', 'suspended'] as const;
    for (const [i, to] of moves.entries()) {
      await changeOfferStatus(h.services.db, { key: `test:${offerId}:${i}`, offerId, to, actor: 'advertiser' });
    }
    // The first event is failing against the closed port; the others wait behind it.
    await eventually('three deliveries, the first failed against the closed port', async () => {
      const log = adminJson(await cli(['callbacks', 'log', '--key', key]));
      return log.length === 3 && log.some((d: { attempts: number; last_error: string | null }) => d.attempts >= 1 && d.last_error);
    });
    await receiver.start();
    const got = await receiver.waitFor(3);
    // Once all three are recorded as delivered nothing goes out again: three requests, each once.
    expect(await eventually('the three deliveries recorded as delivered', () => settledDeliveries(h, clientId, offerId))).toHaveLength(3);
    expect(got).toHaveLength(3);
    expect(got.map((r) => r.json.data.new_status)).toEqual([...moves]);
    const seq = got.map((r) => r.json.sequence);
    expect(seq).toEqual([...seq].sort((a, b) => a - b));
    expect(new Set(got.map((r) => r.json.id)).size).toBe(3);
  });

  it('sends XML to a client that asks for it, and replays an event with the same id', async () => {
    const { key, clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    const receiver = await new CallbackReceiver().start();
    receivers.push(receiver);
    const secret = (await cli(['callbacks', 'set', '--key', key, '--url', receiver.url, '--format', 'xml'])).stdout.trim();
    await changeOfferStatus(h.services.db, {
      key: `test:${offerId}:reject`,
      offerId,
      to: 'rejected',
      actor: 'review_team',
      reason: 'Blurry photos',
    });
    const [first] = await receiver.waitFor(1);
    expect(first.headers['content-type']).toBe('application/xml');
    expect(first.body).toMatch(/^<\?xml[^>]*><event><id>evt_/);
    expect(first.body).toContain('<new_status>rejected</new_status>');
    expect(first.body).toContain('<reason>Blurry photos</reason>');
    expect(first.body).toMatch(
      /<event><id>evt_[^<]+<\/id><type>offer.status_changed<\/type><created_at>[^<]+<\/created_at><sequence>2<\/sequence><data><offer>/,
    );
    expect(() => new Webhook(secret).verify(first.body, first.headers, { jsonParse: false })).not.toThrow();

    const replay = adminJson(await cli(['callbacks', 'replay', first.headers['webhook-id'], '--key', key]));
    expect(replay.deliveries).toHaveLength(1);
    const got = await receiver.waitFor(2);
    expect(got[1].headers['webhook-id']).toBe(first.headers['webhook-id']);
  });

  it('rotating the secret signs with both secrets during the overlap', async () => {
    const { key, clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    const receiver = await new CallbackReceiver().start();
    receivers.push(receiver);
    const oldSecret = (await cli(['callbacks', 'set', '--key', key, '--url', receiver.url])).stdout.trim();
    const rotated = adminJson(await cli(['callbacks', 'rotate-secret', '--key', key, '--json']));
    expect(rotated.secret).not.toBe(oldSecret);
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:withdraw`, offerId, to: 'withdrawn', actor: 'advertiser' });
    const [r] = await receiver.waitFor(1);
    expect(r.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(r.body, r.headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(r.body, r.headers)).not.toThrow();
    expect(adminJson(await cli(['callbacks', 'show', '--key', key])).previous_secret_valid_until).toBeTruthy();
  });

  it('distribution clients hear offer.published when an offer becomes sellable, as the distribution interface shows it', async () => {
    const { clientId } = await h.client('submission');
    const dist = await h.client('distribution');
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    const receiver = await new CallbackReceiver().start();
    receivers.push(receiver);
    adminJson(await cli(['callbacks', 'set', '--key', dist.key, '--url', receiver.url, '--json']));
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:publish`, offerId, to: 'approved', actor: 'review_team' });
    const got = await eventually('a callback about the offer', () => receiver.received.find((r) => r.json?.data?.offer?.id === offerId));
    expect(got.json).toMatchObject({
      type: 'offer.published',
      data: { new_status: 'approved', offer: { id: offerId, status: 'approved' } },
    });
    expect(got.json.data.offer).not.toHaveProperty('custom_attributes');
    expect(got.json.data.offer).not.toHaveProperty('initial_quantity');
    adminJson(await cli(['callbacks', 'disable', '--key', dist.key]));
  });

  it('an offer approved before its start_date: distributors hear offer.published from its review workflow when that day begins, not at approval', async () => {
    const { clientId } = await h.client('submission');
    const dist = await h.client('distribution');
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const offerId = await seedOffer(h, clientId, { start_date: tomorrow }, 'pending');
    const receiver = await new CallbackReceiver().start();
    receivers.push(receiver);
    adminJson(await cli(['callbacks', 'set', '--key', dist.key, '--url', receiver.url, '--json']));
    // Approved early, as the review workflow records it: not published yet.
    await changeOfferStatus(h.services.db, {
      key: `test:${offerId}:early`,
      offerId,
      to: 'approved',
      actor: 'review_team',
      publishDeferred: true,
    });
    const row = () =>
      h.services.db.selectFrom('offers').select(['published_at', 'updated_at']).where('id', '=', offerId).executeTakeFirstOrThrow();
    expect((await row()).published_at).toBeNull();

    // The workflow as it waits for start_date, started with its timer already due (the day has begun).
    const handle = await h.services.temporal.workflow.start<OfferReviewWorkflow>(OFFER_REVIEW_WORKFLOW_TYPE, {
      workflowId: offerReviewWorkflowId(offerId),
      taskQueue: h.config.TEMPORAL_TASK_QUEUE,
      args: [
        {
          offerId,
          status: 'approved',
          startDate: tomorrow,
          endDate: '2099-12-31',
          reviewReminderSeconds: 3600,
          publishDueAtMs: Date.now(),
        },
      ],
    });
    const got = await eventually('a callback about the offer', () => receiver.received.find((r) => r.json?.data?.offer?.id === offerId));
    expect(got.json).toMatchObject({ type: 'offer.published', data: { start_date: tomorrow, offer: { id: offerId, status: 'approved' } } });
    expect(Date.parse(got.json.data.offer.published_at)).not.toBeNaN();
    expect((await row()).published_at).not.toBeNull();
    // The approval itself went to no distributor: once both events are dispatched, the published
    // event is the only delivery they have, and the only callback they got.
    const delivered = await eventually('both events dispatched and delivered', () => settledDeliveries(h, dist.clientId, offerId));
    expect(delivered.map((d) => d.type)).toEqual(['offer.published']);
    expect(receiver.received.filter((r) => r.json?.data?.offer?.id === offerId).map((r) => r.json.type)).toEqual(['offer.published']);
    await handle.terminate('test over');
    adminJson(await cli(['callbacks', 'disable', '--key', dist.key]));
  });

  it("fans one offer's changes out to 50 publisher endpoints, each in order", async () => {
    const { clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId); // approved: publishers hear of it
    const receiver = await new CallbackReceiver().start();
    receivers.push(receiver);
    const endpoints = 50;
    const endpointIds: string[] = [];
    for (let i = 0; i < endpoints; i++) {
      const dist = await h.client('distribution');
      const { endpoint } = await setEndpoint(h.services.db, {
        clientId: dist.clientId,
        url: `${receiver.url}/${i}`,
        format: 'json',
        secretKeys: undefined,
      });
      endpointIds.push(endpoint.id);
    }
    // Two changes back to back: the first goes out on the dispatcher's fast path, the second waits
    // behind it in each lane.
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:fan-suspend`, offerId, to: 'suspended', actor: 'advertiser' });
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:fan-resume`, offerId, to: 'resumed', actor: 'advertiser' });

    const forOffer = () => receiver.received.filter((r) => r.json?.data?.offer?.id === offerId);
    await eventually(
      () => `${2 * endpoints} callbacks (got ${forOffer().length})`,
      () => forOffer().length >= 2 * endpoints,
      {
        timeoutMs: 60_000,
      },
    );
    const byEndpoint = new Map<string, string[]>();
    for (const r of forOffer()) byEndpoint.set(r.url, [...(byEndpoint.get(r.url) ?? []), r.json.type]);
    expect(byEndpoint.size).toBe(endpoints);
    for (const types of byEndpoint.values()) expect(types).toEqual(['offer.suspended', 'offer.published']);
    // A receiver sees the request before its answer is recorded: the last rows settle a moment later.
    const statuses = () =>
      h.services.db
        .selectFrom('callback_deliveries')
        .select(['status', 'leased_until'])
        .where('offer_id', '=', offerId)
        .where('endpoint_id', 'in', endpointIds)
        .execute();
    const settled = await eventually('every delivery recorded as delivered', async () => {
      const rows = await statuses();
      return rows.every((d) => d.status === 'delivered' && d.leased_until === null) && rows;
    });
    expect(settled).toHaveLength(2 * endpoints);
    // Each went out once: nothing was delivered again after it was recorded.
    expect(forOffer()).toHaveLength(2 * endpoints);
    await h.services.db.updateTable('callback_endpoints').set({ status: 'disabled' }).where('id', 'in', endpointIds).execute();
  });
});

describe('offer-change callbacks: endpoints that keep failing', () => {
  let h: Harness;
  const receivers: CallbackReceiver[] = [];
  beforeAll(async () => {
    h = await createHarness({ worker: true, fixed: { CALLBACK_RETRY_SCHEDULE: [1, 1, 1], CALLBACK_DISABLE_AFTER_SECONDS: 2 } });
  });
  afterAll(async () => {
    await h.services.db.updateTable('callback_endpoints').set({ status: 'disabled', disabled_reason: 'test over' }).execute();
    await Promise.all(receivers.map((r) => r.stop()));
    await h.close();
  });

  it('are disabled, with the reason visible in callbacks show, and their pending deliveries cancelled', async () => {
    const { key, clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    const receiver = await new CallbackReceiver([], 503).start();
    receivers.push(receiver);
    adminJson(await admin(['callbacks', 'set', '--key', key, '--url', receiver.url, '--json']));
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:approve`, offerId, to: 'approved', actor: 'review_team' });
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:suspend`, offerId, to: 'suspended', actor: 'advertiser' });
    const shown = await eventually('the endpoint disabled', async () => {
      const s = adminJson(await admin(['callbacks', 'show', '--key', key]));
      return s.status === 'disabled' ? s : null;
    });
    expect(shown.disabled_reason).toMatch(/every attempt failed since .*HTTP 503/);
    const log = adminJson(await admin(['callbacks', 'log', '--key', key]));
    expect(log.map((d: { status: string }) => d.status).sort()).toEqual(['cancelled', 'cancelled']);
  });

  it('an endpoint disabled after its failure window puts endpoint.disabled, with the reason, in its client’s feed', async () => {
    const { key, clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    const receiver = await new CallbackReceiver([], 503).start();
    receivers.push(receiver);
    adminJson(await admin(['callbacks', 'set', '--key', key, '--url', receiver.url, '--description', 'orders hook', '--json']));
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:approve`, offerId, to: 'approved', actor: 'review_team' });
    const shown = await eventually('the endpoint disabled', async () => {
      const s = adminJson(await admin(['callbacks', 'show', '--key', key]));
      return s.status === 'disabled' ? s : null;
    });
    expect(shown).toMatchObject({
      description: 'orders hook',
      disabled_reason: expect.stringMatching(/every attempt failed since .*HTTP 503/),
    });

    const event = await eventually('endpoint.disabled in the feed', async () => {
      const page = await h.app.inject({ method: 'GET', url: `${SUB}/events?limit=1000`, headers: { 'x-service-api-key': key } });
      return page.json().events.find((e: { type: string }) => e.type === 'endpoint.disabled');
    });
    const { id: endpointId } = await h.services.db
      .selectFrom('callback_endpoints')
      .select('id')
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();
    expect(event).toMatchObject({
      offer_id: null,
      sequence: 1,
      data: {
        endpoint: {
          id: endpointId,
          url: receiver.url,
          description: 'orders hook',
          disabled_reason: shown.disabled_reason,
          disabled_at: new Date(shown.disabled_at).toISOString(),
        },
      },
    });
    // Another client's feed does not have it.
    const other = await h.key('submission');
    const theirs = await h.app.inject({
      method: 'GET',
      url: `${SUB}/events?limit=1000`,
      headers: { 'x-service-api-key': other },
    });
    expect(theirs.json().events.map((e: { id: string }) => e.id)).not.toContain(event.id);
    // Dispatched to no one: the endpoint it is about is disabled, and the client has no other.
    await eventually('the event dispatched', async () => {
      const row = await h.services.db.selectFrom('offer_events').select('dispatched_at').where('id', '=', event.id).executeTakeFirst();
      return row?.dispatched_at ?? null;
    });
    expect(await h.services.db.selectFrom('callback_deliveries').select('id').where('event_id', '=', event.id).execute()).toEqual([]);
  });
});

describe('offer-change callbacks in production', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { SERVICE_ENVIRONMENT: 'production' } });
  });
  afterAll(() => h.close());

  it.each([
    ['http://127.0.0.1/callbacks', /must use HTTPS/],
    ['http://10.0.0.1/callbacks', /must use HTTPS/],
    ['https://127.0.0.1/callbacks', /resolves to 127\.0\.0\.1, a loopback, private/],
    ['https://10.0.0.1/callbacks', /resolves to 10\.0\.0\.1, a loopback, private/],
    ['https://localhost/callbacks', /loopback, private/],
    ['https://[::1]/callbacks', /loopback, private/],
  ])('refuses %s with a clear error', async (url, message) => {
    const key = await h.key('submission');
    const res = await admin(['callbacks', 'set', '--key', key, '--url', url], { ...process.env, SERVICE_ENVIRONMENT: 'production' });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^error: refused: /);
    expect(res.stderr).toMatch(message);
  });
});

describe('offer-change callbacks: the outbox is the source of truth', () => {
  let h: Harness;
  let receiver: CallbackReceiver;
  beforeAll(async () => {
    h = await createHarness(); // no worker yet: as if the process died right after the commits
  });
  afterAll(async () => {
    await h.services.db.updateTable('callback_endpoints').set({ status: 'disabled', disabled_reason: 'test over' }).execute();
    await receiver?.stop();
    await h.close();
  });

  it('changes committed while no worker runs are delivered, in order, once a worker starts', async () => {
    const { key, clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    receiver = await new CallbackReceiver().start();
    adminJson(await admin(['callbacks', 'set', '--key', key, '--url', receiver.url, '--json']));
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:approve`, offerId, to: 'approved', actor: 'review_team' });
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:suspend`, offerId, to: 'suspended', actor: 'advertiser' });
    // Committed to the outbox, taken by no dispatcher yet.
    const pending = await h.services.db
      .selectFrom('offer_events')
      .select('dispatched_at')
      .where('offer_id', '=', offerId)
      .where('type', '=', 'offer.status_changed')
      .execute();
    expect(pending).toEqual([{ dispatched_at: null }, { dispatched_at: null }]);
    expect(receiver.received).toHaveLength(0);
    await h.startWorker(); // starts the dispatcher for this task queue, which finds the undispatched events
    const got = await receiver.waitFor(2);
    expect(got.map((r) => r.json.data.new_status)).toEqual(['approved', 'suspended']);
  });
});
