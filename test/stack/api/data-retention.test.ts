import { tsToMs } from '@temporalio/common';
import { sql } from 'kysely';
import { loadConfig } from '../../../platform/config';
import { cursorOwner, encodeCursor } from '../../../schemas/event-feed';
import { claimEnvironment } from '../../../services/deployment';
import { disableEndpoint, setEndpoint } from '../../../store/callback-endpoints';
import { migrateToLatest } from '../../../store/migrate';
import { DATA_PRUNING_WORKFLOW_TYPE, type DataPruningResult } from '../../../workflows/data-pruning-messages';
import { dataPruningScheduleId } from '../../../workflows/shared/ids';
import { eventually } from '../../setup/eventually';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';
import { scratchDatabase } from '../../setup/scratch-database';

/*
 * Data that stops growing (docs/data-retention.md), on a database of its own with a shortened
 * window (FEED_RETENTION_DAYS=2, CALLBACK_DELIVERY_RETENTION_DAYS=2, BULK_FILES_RETENTION_DAYS=2): the hourly schedule's run,
 * started by the schedule itself, deletes what is older and nothing inside the window. Events are
 * placed in the past by rewriting their times (as a feed five days old would have them).
 */

type FeedEvent = { id: string };
type Page = { events: FeedEvent[]; next_cursor: string; has_more: boolean };

const scratch = scratchDatabase('retention');

describe('pruning feed events and callback deliveries on the schedule', () => {
  let h: Harness;
  let sub: { key: string; clientId: string };
  /** Every event, in feed order, with its position. */
  let feed: { id: string; position: number }[];
  let old: typeof feed;
  let young: typeof feed;
  let endpointId: string;

  beforeAll(async () => {
    const db = scratch.open();
    try {
      await migrateToLatest(db);
      await claimEnvironment({ db }, loadConfig(process.env).SERVICE_ENVIRONMENT);
    } finally {
      await db.destroy();
    }
    const env = {
      DATABASE_URL: scratch.url(),
      FEED_RETENTION_DAYS: '2',
      CALLBACK_DELIVERY_RETENTION_DAYS: '2',
      BULK_FILES_RETENTION_DAYS: '2',
    };
    h = await createHarness({ worker: true, env });
    sub = await h.client('submission');
    for (let i = 0; i < 6; i++) await seedOffer(h, sub.clientId);
    // The worker's dispatcher takes every event (no endpoint is enabled: no deliveries are made).
    await eventually('every event dispatched', async () => {
      const left = await h.services.db.selectFrom('offer_events').select('id').where('dispatched_at', 'is', null).execute();
      return left.length === 0;
    });
    expect((await get('')).statusCode).toBe(200); // numbers every event
    feed = await positions();
    // Two thirds of the feed placed five days ago (past the window and the grace), the rest one day ago.
    const split = Math.floor((feed.length * 2) / 3);
    [old, young] = [feed.slice(0, split), feed.slice(split)];
    await placeIn(old, '5 days');
    await placeIn(young, '1 day');
    // Deliveries for a disabled endpoint, written by hand: nothing attempts them meanwhile.
    const { endpoint } = await setEndpoint(h.services.db, {
      clientId: sub.clientId,
      url: 'http://127.0.0.1:9/hook',
      format: 'json',
      secretKeys: undefined,
    });
    endpointId = (await disableEndpoint(h.services.db, endpoint.id, 'test: deliveries written by hand')).id;
    await delivery('cbd_old_done', old[0].id, 'delivered', '5 days');
    await delivery('cbd_old_pending', old[2].id, 'pending', '5 days');
    await delivery('cbd_young_done', young[0].id, 'delivered', '1 day');
    // A replay made long after its event (still inside the window) is pruned by its own age.
    await delivery('cbd_old_failed', young[1].id, 'failed', '5 days');
  });
  afterAll(() => h?.close());

  const get = (query: string) => h.app.inject({ method: 'GET', url: `${SUB}/events${query}`, headers: { 'x-service-api-key': sub.key } });
  const cursorAt = (position: number) => encodeCursor({ position, owner: cursorOwner(sub.clientId) });

  const positions = async () =>
    (
      await h.services.db
        .selectFrom('offer_events')
        .select(['id', 'feed_position'])
        .where('feed_position', 'is not', null)
        .orderBy('feed_position')
        .execute()
    ).map((r) => ({ id: r.id, position: Number(r.feed_position) }));

  /** Moves these events' times back by `ago`, one second apart in feed order (fed_at grows with the position). */
  const placeIn = async (events: typeof feed, ago: string) => {
    for (const [i, e] of events.entries())
      await sql`update offer_events set fed_at = now() - ${ago}::interval + make_interval(secs => ${i}),
                created_at = now() - ${ago}::interval + make_interval(secs => ${i - 1}) where id = ${e.id}`.execute(h.services.db);
  };

  /** Every event after the cursor at `position`, 2 a page, following next_cursor. */
  const readFrom = async (position: number) => {
    const ids: string[] = [];
    let after = cursorAt(position);
    for (;;) {
      const res = await get(`?limit=2&after=${after}`);
      expect(res.statusCode).toBe(200);
      const page = res.json() as Page;
      ids.push(...page.events.map((e) => e.id));
      if (!page.has_more) return { ids, cursor: page.next_cursor };
      after = page.next_cursor;
    }
  };

  /** Starts the schedule's action now, as its hourly tick would, and answers the run's result. */
  const pruneBySchedule = async (): Promise<DataPruningResult> => {
    const schedule = h.services.temporal.schedule.getHandle(dataPruningScheduleId(h.config.TEMPORAL_TASK_QUEUE));
    const described = await schedule.describe();
    expect(described.action).toMatchObject({ workflowType: DATA_PRUNING_WORKFLOW_TYPE });
    const taken = described.info.recentActions.length;
    await schedule.trigger();
    const action = await eventually('the schedule to start a run', async () => {
      const { recentActions } = (await schedule.describe()).info;
      return recentActions.length > taken && recentActions[recentActions.length - 1].action;
    });
    return h.services.temporal.workflow.getHandle(action.workflow.workflowId, action.workflow.firstExecutionRunId).result();
  };

  const kept = async (table: 'offer_events' | 'callback_deliveries', ids: string[]) =>
    (await h.services.db.selectFrom(table).select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort();

  /** A delivery of the event made `ago` (a pending one waiting a day for its next attempt), with one attempt then. */
  const delivery = async (id: string, eventId: string, status: string, ago: string) => {
    await sql`insert into callback_deliveries (id, endpoint_id, event_id, offer_id, sequence, type, payload, status, next_attempt_at, created_at)
        select ${id}, ${endpointId}, e.id, e.offer_id, e.sequence, e.type, '{}', ${status},
               case when ${status} = 'pending' then now() + interval '1 day' end, now() - ${ago}::interval
          from offer_events e where e.id = ${eventId}`.execute(h.services.db);
    await sql`insert into callback_attempts (id, delivery_id, attempt, started_at, duration_ms)
        values (${`${id}_1`}, ${id}, 1, now() - ${ago}::interval, 5)`.execute(h.services.db);
  };

  /** Each pruned table's gauges, as /metrics shows them. */
  const gauges = async () => {
    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    const value = (name: string, table: string) => {
      const line = res.body.split('\n').find((l) => l.startsWith(`${name}{table="${table}"} `));
      if (!line) throw new Error(`/metrics has no ${name} for ${table}`);
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    return Object.fromEntries(
      (['offer_events', 'callback_deliveries', 'callback_attempts'] as const).map((t) => [
        t,
        { rows: value('pruned_table_rows', t), oldest: value('pruned_table_oldest_row_age_seconds', t) },
      ]),
    );
  };
  const DAY = 86_400;

  it("shows each pruned table's rows and the age of its oldest row on /metrics, counted or estimated", async () => {
    const expected = { rows: feed.length, oldest: expect.any(Number) };
    const counted = await gauges();
    expect(counted).toEqual({
      offer_events: expected,
      callback_deliveries: { rows: 4, oldest: expect.any(Number) },
      callback_attempts: { rows: 4, oldest: expect.any(Number) },
    });
    for (const t of Object.values(counted)) expect([t.oldest >= 5 * DAY - 5, t.oldest < 6 * DAY]).toEqual([true, true]);
    // Once analysed, the planner's statistics give the rows; for tables this small they are exact.
    await sql`analyze offer_events, callback_deliveries, callback_attempts`.execute(h.services.db);
    const stats = await sql<{ reltuples: number }>`select reltuples from pg_class where relname = 'offer_events'`.execute(h.services.db);
    expect(stats.rows[0].reltuples).toBe(feed.length);
    const estimated = await gauges();
    for (const t of ['offer_events', 'callback_deliveries', 'callback_attempts'] as const) expect(estimated[t].rows).toBe(counted[t].rows);
  });

  it('deletes what is older than the window, keeps a pending delivery and what it holds, and the feed inside the window is whole', async () => {
    const last = (es: typeof feed) => es[es.length - 1].position;
    const db = h.services.db;
    const deliveries = ['cbd_old_done', 'cbd_old_pending', 'cbd_young_done', 'cbd_old_failed'];

    // Before: a cursor before the old events is already too old; inside the window, pages are whole.
    expect((await get(`?after=${cursorAt(old[0].position)}`)).statusCode).toBe(410);
    const fromBoundary = await readFrom(last(old));
    expect(fromBoundary.ids).toEqual(young.map((e) => e.id));
    const fromInside = await readFrom(young[1].position);
    expect(fromInside.ids).toEqual(young.slice(2).map((e) => e.id));

    // Run 1: the pending delivery holds its event, and so every event after it in the feed.
    expect(await pruneBySchedule()).toEqual({ deliveries: 2, events: 2, files: 0 });
    expect(await kept('callback_deliveries', deliveries)).toEqual(['cbd_old_pending', 'cbd_young_done']);
    const attempts = await db.selectFrom('callback_attempts').select('delivery_id').orderBy('delivery_id').execute();
    expect(attempts.map((a) => a.delivery_id)).toEqual(['cbd_old_pending', 'cbd_young_done']);
    expect(await kept('offer_events', [old[0].id, old[1].id])).toEqual([]);
    expect((await positions()).map((e) => e.id)).toEqual(feed.slice(2).map((e) => e.id));
    expect((await get(`?after=${cursorAt(old[0].position)}`)).statusCode).toBe(410);
    expect(await readFrom(last(old))).toEqual(fromBoundary);

    // Run 2: once it is finished, the rest of the old events go; nothing inside the window does.
    await db.updateTable('callback_deliveries').set({ status: 'cancelled' }).where('id', '=', 'cbd_old_pending').execute();
    expect(await pruneBySchedule()).toEqual({ deliveries: 1, events: old.length - 2, files: 0 });
    expect((await positions()).map((e) => e.id)).toEqual(young.map((e) => e.id));
    expect(await kept('callback_deliveries', deliveries)).toEqual(['cbd_young_done']);
    // Below the floor: gone (its next event was deleted). At the floor and inside the window: as before.
    const below = await get(`?after=${cursorAt(old[old.length - 2].position)}`);
    expect([below.statusCode, below.json().errors[0].code]).toEqual([410, 'gone']);
    expect(await readFrom(last(old))).toEqual(fromBoundary);
    expect(await readFrom(young[1].position)).toEqual(fromInside);
    // A client starting afresh gets the window, whole; `since` inside it works, before it is refused.
    const fresh = await get('?limit=1000');
    expect((fresh.json() as Page).events.map((e) => e.id)).toEqual(young.map((e) => e.id));
    expect((await get(`?since=${new Date(Date.now() - 36 * 3600_000).toISOString()}`)).statusCode).toBe(200);
    expect((await get(`?since=${new Date(Date.now() - 3 * 86_400_000).toISOString()}`)).statusCode).toBe(410);
    // Nothing more is due.
    expect(await pruneBySchedule()).toEqual({ deliveries: 0, events: 0, files: 0 });
  });

  it('keeps an up-to-date cursor good when every event is pruned, and numbers new events above the floor', async () => {
    const { cursor } = await readFrom(young[young.length - 1].position);
    await placeIn(young, '5 days');
    await h.services.db
      .updateTable('callback_deliveries')
      .set({ created_at: sql<Date>`now() - interval '5 days'` })
      .execute();
    expect(await pruneBySchedule()).toEqual({ deliveries: 1, events: young.length, files: 0 });
    expect(await positions()).toEqual([]);

    const quiet = await get(`?after=${cursor}`);
    expect([quiet.statusCode, (quiet.json() as Page).events]).toEqual([200, []]);
    const offerId = await seedOffer(h, sub.clientId);
    const fresh = await h.services.db.selectFrom('offer_events').select('id').where('offer_id', '=', offerId).orderBy('sequence').execute();
    const after = (await get(`?after=${cursor}`)).json() as Page;
    expect(after.events.map((e) => e.id)).toEqual(fresh.map((e) => e.id));
    expect((await positions()).every((e) => e.position > young[young.length - 1].position)).toBe(true);
  });

  it('shows the tables after pruning: empty ones with no oldest row', async () => {
    await sql`vacuum analyze offer_events, callback_deliveries, callback_attempts`.execute(h.services.db);
    const now = await gauges();
    const events = await h.services.db.selectFrom('offer_events').select('id').execute();
    expect(now.offer_events.rows).toBe(events.length);
    expect(now.offer_events.oldest).toBeLessThan(DAY);
    expect([now.callback_deliveries, now.callback_attempts]).toEqual([
      { rows: 0, oldest: 0 },
      { rows: 0, oldest: 0 },
    ]);
  });

  it('deletes the stored files of imports and exports finished before BULK_FILES_RETENTION_DAYS, once; the API answers them cleanly', async () => {
    const db = h.services.db;
    const { client, bucket } = h.services.store;
    const headers = { 'x-service-api-key': sub.key };
    const stored = (key: string) =>
      client.statObject(bucket, key).then(
        () => true,
        (err: { code?: string }) => (err.code === 'NotFound' || err.code === 'NoSuchKey' ? false : Promise.reject(err)),
      );
    const exportOf = async (offerId: string) => {
      const started = await h.app.inject({ method: 'POST', url: `${SUB}/offers/${offerId}/voucher_exports`, headers });
      expect(started.statusCode).toBe(202);
      const id = started.json().voucher_export.id as string;
      return eventually(`export ${id} completed`, async () => {
        const e = (await h.app.inject({ method: 'GET', url: `${SUB}/voucher_exports/${id}`, headers })).json().voucher_export;
        return e.status === 'completed' && (e as { id: string; download_url: string });
      });
    };
    const download = (url: string) => h.app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search });

    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: undefined, vouchers: [{ redemption_code: 'RET-1' }] });
    const [aged, young] = [await exportOf(offerId), await exportOf(offerId)];
    const posted = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers/${offerId}/voucher_imports`,
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: 'redemption_code\nRET-2\nRET-1\n',
    });
    expect(posted.statusCode).toBe(202);
    const importId = posted.json().voucher_import.id as string;
    const getImport = () => h.app.inject({ method: 'GET', url: `${SUB}/voucher_imports/${importId}`, headers });
    const imported = await eventually('the import to finish', async () => {
      const imp = (await getImport()).json().voucher_import;
      return imp.status === 'completed' && (imp as { errors_url: string });
    });
    const keys = {
      aged: (await db.selectFrom('voucher_exports').select('object_key').where('id', '=', aged.id).executeTakeFirstOrThrow()).object_key,
      young: (await db.selectFrom('voucher_exports').select('object_key').where('id', '=', young.id).executeTakeFirstOrThrow()).object_key,
      source: (await db.selectFrom('voucher_imports').select('source_key').where('id', '=', importId).executeTakeFirstOrThrow())
        .source_key!,
    };
    expect([await stored(keys.aged), await stored(keys.young), await stored(keys.source)]).toEqual([true, true, true]);
    // The aged export and the import finished five days ago; the other export just now.
    await sql`update voucher_exports set finished_at = now() - interval '5 days' where id = ${aged.id}`.execute(db);
    await sql`update voucher_imports set finished_at = now() - interval '5 days' where id = ${importId}`.execute(db);
    // A failed export that wrote nothing: its key is missing in the store, and it is pruned all the same.
    await sql`insert into voucher_exports (id, client_id, offer_id, interface, status, object_key, signing_key, error, finished_at)
        values ('vex_failed_old', ${sub.clientId}, ${offerId}, 'submission', 'failed', 'voucher-exports/vex_failed_old.csv', 'k', 'test',
                now() - interval '5 days')`.execute(db);

    expect(await pruneBySchedule()).toMatchObject({ files: 3 });
    expect([await stored(keys.aged), await stored(keys.young), await stored(keys.source)]).toEqual([false, true, false]);
    // The pruned export still reads, with no link; a link made before answers 410 gone, never a 500.
    const read = (await h.app.inject({ method: 'GET', url: `${SUB}/voucher_exports/${aged.id}`, headers })).json().voucher_export;
    expect(read).toMatchObject({ status: 'completed', download_url: null, expires_at: null });
    const gone = await download(aged.download_url);
    expect([gone.statusCode, gone.json().errors[0].code]).toEqual([410, 'gone']);
    expect((await download(young.download_url)).statusCode).toBe(200);
    // The import still reads, and its errors CSV comes from Postgres, not from the deleted file.
    expect((await getImport()).json().voucher_import).toMatchObject({ status: 'completed', rows_imported: 1, rows_rejected: 1 });
    const errors = await h.app.inject({ method: 'GET', url: new URL(imported.errors_url).pathname, headers });
    expect([errors.statusCode, errors.body.includes('RET-1')]).toEqual([200, true]);
    // Each is pruned once.
    expect(await pruneBySchedule()).toMatchObject({ files: 0 });
  });

  it("has the local stack's Temporal namespace keep closed workflows TEMPORAL_NAMESPACE_RETENTION_DAYS", async () => {
    const { config } = await h.services.temporal.workflowService.describeNamespace({ namespace: h.config.TEMPORAL_NAMESPACE });
    expect(tsToMs(config?.workflowExecutionRetentionTtl)).toBe(h.config.TEMPORAL_NAMESPACE_RETENTION_DAYS * DAY * 1000);
    // Set at each start; the dev server's own default is a day.
    expect(h.config.TEMPORAL_NAMESPACE_RETENTION_DAYS).not.toBe(1);
  });
});
