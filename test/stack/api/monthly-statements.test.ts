import { sql } from 'kysely';
import { XMLParser } from 'fast-xml-parser';
import { runMonthlyStatements } from '../../../services/monthly-statements';
import { seedOffer } from '../../setup/fixtures';
import { ensureMonthlyStatementsSchedule } from '../../../worker/main';
import { MONTHLY_STATEMENTS_WORKFLOW_TYPE } from '../../../workflows/monthly-statements-messages';
import { monthlyStatementsScheduleId, monthlyStatementsWorkflowId } from '../../../workflows/shared/ids';
import { createHarness, type Harness } from '../../setup/harness';
import { CallbackReceiver } from '../../setup/callback-receiver';
import { eventually } from '../../setup/eventually';
import { setEndpoint } from '../../../store/callback-endpoints';
import { DIST } from '../../setup/paths';

/*
 * The monthly statements through the real stack (docs/statements.md "Monthly statements"): the
 * workflow the schedule starts, run for March 2025 as `admin statements run 2025-03` runs it;
 * listed and fetched by each client in JSON, XML and CSV; a re-run stores nothing twice, and a
 * statement made again from scratch is byte for byte the one stored before.
 */

const MONTH = '2025-03';
const USD = (amount: number) => ({ currency_code: 'USD', amount });
/** A statement figure: its amount is a decimal string (docs/statements.md "Money and rounding"). */
const sUSD = (amount: number) => ({ currency_code: 'USD', amount: String(amount) });

describe('monthly statements', () => {
  let h: Harness;
  let sub: { key: string; clientId: string };
  let dist: { key: string; clientId: string };
  let otherDist: { key: string; clientId: string };
  let offerId: string;
  const receiver = new CallbackReceiver();
  const otherReceiver = new CallbackReceiver();

  beforeAll(async () => {
    h = await createHarness({ worker: true });
    [sub, dist, otherDist] = [await h.client('submission'), await h.client('distribution'), await h.client('distribution')];
    await Promise.all([receiver.start(), otherReceiver.start()]);
    await setEndpoint(h.services.db, { clientId: dist.clientId, url: receiver.url, format: 'json', secretKeys: undefined });
    await setEndpoint(h.services.db, { clientId: otherDist.clientId, url: otherReceiver.url, format: 'json', secretKeys: undefined });
    offerId = await seedOffer(h, sub.clientId, { advertiser_rebate: USD(300) }); // price USD 4500
    const orderId = `ord_ms_${dist.clientId}`;
    await h.services.db
      .insertInto('orders')
      .values({
        id: orderId,
        client_id: dist.clientId,
        order_number: orderId,
        order_key: `wf-${orderId}`,
        customer_name: 'C',
        status: 'active',
      })
      .execute();
    // Three sold in March (one cancelled in March), one sold in February and cancelled in March, one sold in April.
    const times: Array<[string, string | null]> = [
      ['2025-03-01T00:00:00Z', null],
      ['2025-03-15T12:00:00Z', null],
      ['2025-03-31T23:59:59Z', '2025-03-31T23:59:59.5Z'],
      ['2025-02-20T00:00:00Z', '2025-03-02T00:00:00Z'],
      ['2025-04-01T00:00:00Z', null],
    ];
    await h.services.db
      .insertInto('vouchers')
      .values(
        times.map(([acquired, cancelled], i) => ({
          id: `vch_ms_${dist.clientId}_${i}`,
          offer_id: offerId,
          order_id: orderId,
          client_id: dist.clientId,
          counts_stock: true,
          redemption_code: `MS-${dist.clientId}-${i}`,
          barcode: `MS${dist.clientId}${i}`,
          customer_name: 'C',
          status: cancelled ? ('cancelled' as const) : ('acquired' as const),
          acquired_at: new Date(acquired),
          cancelled_at: cancelled ? new Date(cancelled) : null,
          sale_price_amount: 4500,
          sale_price_currency: 'USD',
          sale_rebate_amount: 300,
          sale_rebate_currency: 'USD',
          sale_distributor_revenue: 900,
          sale_account_revenue: 450,
        })),
      )
      .execute();
  });
  afterAll(async () => {
    await Promise.all([receiver.stop(), otherReceiver.stop()]);
    await h.close();
  });

  /** The statement.ready events of the client's change feed. */
  async function readyEvents(iface: 'submission' | 'distribution', key: string) {
    const feed = await get(`/${iface}/beta/events?limit=1000`, key);
    expect(feed.statusCode).toBe(200);
    return feed.json().events.filter((e: { type: string }) => e.type === 'statement.ready');
  }
  const readyCallbacks = (r: CallbackReceiver) => r.received.filter((c) => c.json?.type === 'statement.ready');

  const get = (url: string, key: string) => h.app.inject({ method: 'GET', url, headers: { 'x-service-api-key': key } });
  const run = () => runMonthlyStatements(h.services, MONTH);
  /** The three files of the client's stored statement of MONTH, as the API serves them. */
  async function files(iface: 'submission' | 'distribution', key: string) {
    const list = await get(`/${iface}/beta/statements`, key);
    expect(list.statusCode).toBe(200);
    const mine = list.json().statements.filter((s: { month: string }) => s.month === MONTH);
    expect(mine).toHaveLength(1);
    const id = mine[0].id as string;
    const [json, xml, csv] = await Promise.all([
      get(`/${iface}/beta/statements/${id}`, key),
      get(`/${iface}/beta/statements/${id}.xml`, key),
      get(`/${iface}/beta/statements/${id}.csv`, key),
    ]);
    for (const r of [json, xml, csv]) expect(r.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
    return { id, item: mine[0], json: json.body, xml: xml.body, csv: csv.body };
  }

  it('stores each client its statement of the month, the same as GET /statement for that month', async () => {
    const result = await run();
    expect(result.month).toBe(MONTH);
    expect(result.clients).toBeGreaterThanOrEqual(2);

    const d = await files('distribution', dist.key);
    const live = await get(`${DIST}/statement?from=2025-03-01&to=2025-03-31`, dist.key);
    expect(JSON.parse(d.json)).toEqual(live.json());
    expect(JSON.parse(d.json).statement.lines).toEqual([
      {
        offer_id: offerId,
        account_id: null,
        currency_code: 'USD',
        vouchers_sold: 3,
        vouchers_cancelled: 2,
        gross_sales: sUSD(13500),
        net_sales: sUSD(4500),
        distributor_revenue: sUSD(900),
        account_revenue: sUSD(450),
      },
    ]);
    expect(d.item).toMatchObject({ month: MONTH, from: '2025-03-01', to: '2025-03-31', lines: 1 });
    expect(d.csv).toBe(
      'offer_id,account_id,currency_code,vouchers_sold,vouchers_cancelled,gross_sales,net_sales,distributor_revenue,account_revenue\r\n' +
        `${offerId},,USD,3,2,13500,4500,900,450\r\n`,
    );
    const xml = new XMLParser({ parseTagValue: false }).parse(d.xml);
    expect(xml.response.statement.lines.line.net_sales.amount).toBe('4500');

    const s = await files('submission', sub.key);
    expect(JSON.parse(s.json).statement.offers).toEqual([
      expect.objectContaining({ offer_id: offerId, vouchers_sold: 3, vouchers_cancelled: 2, advertiser_rebate: sUSD(300) }),
    ]);
    // Each client sees only its own.
    expect((await get(`${DIST}/statements/${d.id}`, otherDist.key)).statusCode).toBe(404);
    expect((await get(`${DIST}/statements/${d.id}.csv`, otherDist.key)).statusCode).toBe(404);
    expect((await get(`${DIST}/statements`, otherDist.key)).json().statements).toEqual([]);

    // Announced once, to this client alone, by the feed and the callback with one id.
    const [event] = await readyEvents('distribution', dist.key);
    expect(event).toMatchObject({
      offer_id: null,
      data: { statement: { id: d.id, month: MONTH, from: '2025-03-01', to: '2025-03-31', lines: 1 } },
    });
    expect(event.data.statement.files).toEqual(d.item.files);
    const [callback] = await eventually(
      'the statement.ready callback',
      () => readyCallbacks(receiver).length > 0 && readyCallbacks(receiver),
    );
    expect(callback.json).toMatchObject({ id: event.id, type: 'statement.ready', data: event.data });
    expect(callback.headers['webhook-id']).toBe(event.id);
    expect(await readyEvents('distribution', otherDist.key)).toEqual([]);
    expect((await readyEvents('submission', sub.key)).map((e: { data: { statement: { id: string } } }) => e.data.statement.id)).toEqual([
      s.id,
    ]);
  });

  it('a re-run stores nothing twice, and a statement made again is byte for byte the one before', async () => {
    const before = await files('distribution', dist.key);
    const again = await run();
    expect(again.stored).toBe(0);
    const rows = await h.services.db.selectFrom('monthly_statements').selectAll().where('client_id', '=', dist.clientId).execute();
    expect(rows).toHaveLength(1);

    // As if the first run had stopped after writing the files: the row goes, the run makes the statement again.
    await sql`delete from monthly_statements where client_id = ${dist.clientId}`.execute(h.services.db);
    expect((await run()).stored).toBe(1);
    const after = await files('distribution', dist.key);
    expect(after.id).toBe(before.id);
    expect(after.item.files).toEqual(before.item.files);
    expect([after.json, after.xml, after.csv]).toEqual([before.json, before.xml, before.csv]);
    // Still one event, in the feed and as callbacks (a callback may be sent again, under the same id).
    const events = await readyEvents('distribution', dist.key);
    expect(events).toHaveLength(1);
    expect(new Set(readyCallbacks(receiver).map((c) => c.json.id))).toEqual(new Set([events[0].id]));
    expect(readyCallbacks(otherReceiver)).toEqual([]);
  });

  it('the worker created the schedule: 00:30 UTC on the 1st, starting the workflow for the month before', async () => {
    const schedule = await h.services.temporal.schedule.getHandle(monthlyStatementsScheduleId(h.config.TEMPORAL_TASK_QUEUE)).describe();
    expect(schedule.spec.calendars).toEqual([
      expect.objectContaining({ dayOfMonth: [{ start: 1, end: 1, step: 1 }], hour: [{ start: 0, end: 0, step: 1 }] }),
    ]);
    expect(schedule.spec.timezone).toBe('UTC');
    expect(schedule.action).toMatchObject({ workflowType: MONTHLY_STATEMENTS_WORKFLOW_TYPE, args: [{}] });
    // A second worker start finds it and changes nothing.
    await expect(ensureMonthlyStatementsSchedule(h.services, h.config.TEMPORAL_TASK_QUEUE)).resolves.toBeUndefined();
    expect((await h.services.temporal.schedule.getHandle(schedule.scheduleId).describe()).spec).toEqual(schedule.spec);
  });

  it("a worker start sets an older release's schedule to this release's definition, keeping an operator's pause", async () => {
    const handle = h.services.temporal.schedule.getHandle(monthlyStatementsScheduleId(h.config.TEMPORAL_TASK_QUEUE));
    // As an older release left it (another hour), and paused by an operator.
    await handle.update((previous) => ({
      ...previous,
      spec: { calendars: [{ dayOfMonth: 1, hour: 5, minute: 0 }], timezone: 'UTC' },
      state: { paused: true, note: 'paused for the migration' },
    }));
    await ensureMonthlyStatementsSchedule(h.services, h.config.TEMPORAL_TASK_QUEUE);
    const after = await handle.describe();
    expect(after.spec.calendars).toEqual([
      expect.objectContaining({ hour: [{ start: 0, end: 0, step: 1 }], minute: [{ start: 30, end: 30, step: 1 }] }),
    ]);
    expect(after.state).toMatchObject({ paused: true, note: 'paused for the migration' });
    await handle.unpause();
  });

  it('refuses a month that has not ended (UTC): nothing stored, no event, no run started (issue 34)', async () => {
    // A sale this month: a run of it would have something to store.
    const thisMonth = new Date().toISOString().slice(0, 7);
    await h.services.db
      .insertInto('vouchers')
      .values({
        id: `vch_ms_${dist.clientId}_now`,
        offer_id: offerId,
        order_id: `ord_ms_${dist.clientId}`,
        client_id: dist.clientId,
        counts_stock: true,
        redemption_code: `MS-${dist.clientId}-now`,
        barcode: `MS${dist.clientId}now`,
        customer_name: 'C',
        status: 'acquired',
        acquired_at: new Date(),
        sale_price_amount: 4500,
        sale_price_currency: 'USD',
      })
      .execute();
    const eventsBefore = await readyEvents('distribution', dist.key);
    await expect(runMonthlyStatements(h.services, thisMonth)).rejects.toMatchObject({
      code: 'invalid_field',
      message: expect.stringMatching(new RegExp(`^month: the month ${thisMonth} has not ended: it ends at \\d{4}-\\d{2}-01T00:00:00.000Z`)),
    });
    const stored = await h.services.db.selectFrom('monthly_statements').select('id').where('month', '=', thisMonth).execute();
    expect(stored).toEqual([]);
    expect(await readyEvents('distribution', dist.key)).toEqual(eventsBefore);
    const workflowId = monthlyStatementsWorkflowId(h.config.TEMPORAL_TASK_QUEUE, thisMonth);
    await expect(h.services.temporal.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
  });

  it('refuses a month that is not one', async () => {
    await expect(runMonthlyStatements(h.services, '2025-13')).rejects.toMatchObject({ code: 'invalid_field' });
  });
});
