import { changeOfferStatus } from '../../../store/offers';
import { admin, adminJson } from '../../setup/admin';
import { CallbackReceiver } from '../../setup/callback-receiver';
import { eventually } from '../../setup/eventually';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

/*
 * Endpoints an integrator shapes (issue 37, docs/callbacks.md "Endpoint settings"): event-type
 * filtering, max_per_second measured at the receiver, and the endpoint.disabled event.
 */

/** The endpoint's deliveries of these offers, once every one of their events is dispatched and every delivery delivered. */
async function settled(h: Harness, endpointId: string, offerIds: string[]) {
  const undispatched = await h.services.db
    .selectFrom('offer_events')
    .select('id')
    .where('offer_id', 'in', offerIds)
    .where('dispatched_at', 'is', null)
    .execute();
  const rows = await h.services.db
    .selectFrom('callback_deliveries')
    .select(['offer_id', 'type', 'sequence', 'status'])
    .where('endpoint_id', '=', endpointId)
    .where('offer_id', 'in', offerIds)
    .orderBy('offer_id')
    .orderBy('sequence')
    .execute();
  return undispatched.length === 0 && rows.every((d) => d.status === 'delivered') && rows;
}

const endpointIdOf = async (h: Harness, clientId: string) =>
  (await h.services.db.selectFrom('callback_endpoints').select('id').where('client_id', '=', clientId).executeTakeFirstOrThrow()).id;

describe('callback endpoints an integrator shapes', () => {
  let h: Harness;
  const receivers: CallbackReceiver[] = [];
  const cli = (args: string[]) => admin(args, { ...process.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE });

  beforeAll(async () => {
    h = await createHarness({ worker: true, fixed: { CALLBACK_RETRY_SCHEDULE: [1, 1, 1, 1, 1], CALLBACK_TIMEOUT_SECONDS: 5 } });
  });
  afterAll(async () => {
    await h.services.db.updateTable('callback_endpoints').set({ status: 'disabled', disabled_reason: 'test over' }).execute();
    await Promise.all(receivers.map((r) => r.stop()));
    await h.close();
  });

  it('refuses event types the client cannot receive, naming them', async () => {
    const dist = await h.client('distribution');
    for (const types of ['offer.bogus', 'offer.published,offer.created']) {
      const res = await cli(['callbacks', 'set', '--key', dist.key, '--url', 'http://127.0.0.1:9/hook', '--event-types', types]);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/event_types: unknown for a distribution client: offer\.(bogus|created);/);
    }
    const res = await cli(['callbacks', 'set', '--key', dist.key, '--url', 'http://127.0.0.1:9/hook', '--max-per-second', '101']);
    expect(res.stderr).toMatch(/max_per_second: must be a whole number from 1 to 100/);
    expect(await h.services.db.selectFrom('callback_endpoints').select('id').where('client_id', '=', dist.clientId).execute()).toEqual([]);
  });

  it('sends only the event types an endpoint asked for, in order per offer; the feed still has them all', async () => {
    const { clientId } = await h.client('submission');
    const dist = await h.client('distribution');
    const offerId = await seedOffer(h, clientId); // approved before the endpoint: its history is not sent
    const receiver = await new CallbackReceiver().start();
    receivers.push(receiver);
    const set = adminJson(
      await cli(['callbacks', 'set', '--key', dist.key, '--url', receiver.url, '--event-types', 'offer.published,offer.closed', '--json']),
    );
    expect(set).toMatchObject({ event_types: ['offer.published', 'offer.closed'], max_per_second: null });
    expect(adminJson(await cli(['callbacks', 'show', '--key', dist.key]))).toMatchObject({
      event_types: ['offer.published', 'offer.closed'],
    });

    for (const to of ['suspended', 'resumed', 'suspended', 'resumed', 'closed'] as const)
      await changeOfferStatus(h.services.db, { key: `test:${offerId}:${to}:${Math.random()}`, offerId, to, actor: 'advertiser' });
    const endpointId = await endpointIdOf(h, dist.clientId);
    const rows = await eventually('every event dispatched, every delivery delivered', () => settled(h, endpointId, [offerId]));
    // offer.suspended was filtered out at fan-out: no delivery of it was ever made.
    expect(rows.map((r) => r.type)).toEqual(['offer.published', 'offer.published', 'offer.closed']);
    const got = (await receiver.waitFor(3)).filter((r) => r.json?.data?.offer?.id === offerId);
    expect(got.map((r) => r.json.type)).toEqual(['offer.published', 'offer.published', 'offer.closed']);
    const seq = got.map((r) => r.json.sequence);
    expect(seq).toEqual([...seq].sort((a, b) => a - b));

    const feed = await h.app.inject({
      method: 'GET',
      url: `${DIST}/events?limit=1000`,
      headers: { 'x-service-api-key': dist.key },
    });
    const types = feed
      .json()
      .events.filter((e: { offer_id: string }) => e.offer_id === offerId)
      .map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['offer.suspended', 'offer.published', 'offer.closed']));
    adminJson(await cli(['callbacks', 'disable', '--key', dist.key]));
  });

  it('spreads attempts to an endpoint at max_per_second, retries and a backlog over many offers included', async () => {
    const { key, clientId } = await h.client('submission');
    const offerIds: string[] = [];
    for (let i = 0; i < 6; i++) offerIds.push(await seedOffer(h, clientId, {}, 'pending'));
    // Down for its first three requests: those deliveries are retried, through the same pacing.
    const receiver = await new CallbackReceiver([503, 503, 503]).start();
    receivers.push(receiver);
    const perSecond = 5;
    adminJson(await cli(['callbacks', 'set', '--key', key, '--url', receiver.url, '--max-per-second', String(perSecond), '--json']));
    for (const offerId of offerIds) {
      await changeOfferStatus(h.services.db, { key: `test:${offerId}:approve`, offerId, to: 'approved', actor: 'review_team' });
      await changeOfferStatus(h.services.db, { key: `test:${offerId}:suspend`, offerId, to: 'suspended', actor: 'advertiser' });
    }
    const endpointId = await endpointIdOf(h, clientId);
    const rows = await eventually('12 deliveries delivered', () => settled(h, endpointId, offerIds), { timeoutMs: 60_000 });
    expect(rows).toHaveLength(12);

    const got = [...receiver.received].sort((a, b) => a.at - b.at);
    expect(got).toHaveLength(15); // 12 deliveries, three of them twice
    const spacing = 1000 / perSecond;
    // What a receiver feels: no second holds more than max_per_second attempts. Each attempt goes out
    // no earlier than its slot (slots are 200 ms apart by the database's clock), but one can go out
    // late (a busy worker, a timer) and so land closer to the next: single gaps may be short, a
    // one-second window holds at most perSecond + 1 (its two edges). Unpaced, all 15 land at once.
    const inOneSecondFrom = (i: number) => got.filter((r) => r.at >= got[i].at && r.at < got[i].at + 1000).length;
    expect(Math.max(...got.map((_, i) => inOneSecondFrom(i)))).toBeLessThanOrEqual(perSecond + 1);
    expect(got[got.length - 1].at - got[0].at).toBeGreaterThanOrEqual((got.length - 1) * spacing * 0.9);
    // In order per offer: each offer's approval is received (delivered) before its suspension.
    for (const offerId of offerIds) {
      const statuses = got.filter((r) => r.json.data.offer.id === offerId).map((r) => r.json.data.new_status);
      expect(statuses.filter((s, i) => statuses.indexOf(s) === i)).toEqual(['approved', 'suspended']);
    }
  });
});
