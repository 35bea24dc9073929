import { sql } from 'kysely';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseCsv } from 'csv-parse/sync';
import { runMonthlyStatements } from '../../../services/monthly-statements';
import { MAX_MONEY_AMOUNT } from '../../../schemas/common';
import { MAX_UNITS_PER_ORDER } from '../../../schemas/order';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';

/*
 * Issue 34 finding 1 on the real stack: orders at the price cap × the most units an order takes
 * (five offers of 100 units each: an item takes at most 100), placed through the intake, one
 * cancelled through its workflow; each line is under 2^53, the totals are past it. Every statement
 * format on both interfaces (JSON, XML, CSV) states the exact figures, and the monthly run stores
 * them exactly instead of failing. Before, GET /statement answered 500 (the serializer refused a
 * number past 2^53), the monthly run failed, and the CSV was off by one.
 */

const CAP = BigInt(MAX_MONEY_AMOUNT);
const ORDERS = 19;
const OFFERS = 5;
/** Units per item: an order's MAX_UNITS_PER_ORDER units spread over its five offers. */
const UNITS = MAX_UNITS_PER_ORDER / OFFERS;
/** A month no other test file uses: the sales are moved there for the monthly run. */
const MONTH = '2001-05';

describe('statement money at the caps, through orders and the monthly run', () => {
  let h: Harness;
  let sub: { key: string; clientId: string };
  let dist: { key: string; clientId: string };
  let offerIds: string[];
  const sold = BigInt(ORDERS * UNITS);
  const cancelled = BigInt(UNITS);
  // A line's figures in BigInt: the price, the rebate and the value at the cap; shares 20 % and 50 % of it.
  const expected = {
    gross_sales: sold * CAP,
    refunds: cancelled * CAP,
    net_sales: (sold - cancelled) * CAP,
    advertiser_rebate: (sold - cancelled) * CAP,
    distributor_revenue: (sold - cancelled) * ((CAP * 20n) / 100n),
    account_revenue: (sold - cancelled) * ((CAP * 20n * 50n) / 10_000n),
  };

  beforeAll(async () => {
    h = await createHarness({ worker: true });
    [sub, dist] = [await h.client('submission'), await h.client('distribution')];
    const usd = (amount: number) => ({ currency_code: 'USD', amount });
    const atTheCap = {
      price: usd(MAX_MONEY_AMOUNT),
      value: usd(MAX_MONEY_AMOUNT),
      advertiser_rebate: usd(MAX_MONEY_AMOUNT),
      discount: { type: 'percentage', percentage: 0 },
      initial_quantity: ORDERS * UNITS,
    };
    offerIds = [];
    for (let i = 0; i < OFFERS; i++) offerIds.push(await seedOffer(h, sub.clientId, atTheCap));
    const items = offerIds.map((offer_id) => ({ offer_id, quantity: UNITS }));
    const placed: string[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const res = await post(`/orders`, { order: { order_number: `cap-${i}`, customer_name: 'C', items } });
      expect([res.statusCode, res.body.slice(0, 300)]).toEqual([200, expect.anything()]);
      placed.push(res.json().order.id);
    }
    const cancel = await h.app.inject({
      method: 'PUT',
      url: `/distribution/beta/orders/${placed[0]}`,
      headers: { 'x-service-api-key': dist.key },
      payload: { order: { status: 'cancelled' } },
    });
    expect(cancel.json().order.status).toBe('cancelled');
  }, 600_000);
  afterAll(() => h?.close());

  const post = (url: string, payload: object) =>
    h.app.inject({ method: 'POST', url: `/distribution/beta${url}`, headers: { 'x-service-api-key': dist.key }, payload });
  const get = (url: string, key: string) => h.app.inject({ method: 'GET', url, headers: { 'x-service-api-key': key } });

  const submissionFigures = ['gross_sales', 'refunds', 'net_sales', 'advertiser_rebate'] as const;
  const distributionFigures = ['gross_sales', 'net_sales', 'distributor_revenue', 'account_revenue'] as const;
  const xml = new XMLParser({ parseTagValue: false, isArray: (name) => ['offer', 'line', 'total'].includes(name) });

  /** A statement's three answers (JSON, XML, CSV): every cap figure exact, in each line and the total. */
  function expectExact(iface: 'submission' | 'distribution', json: string, xmlBody: string, csvBody: string) {
    const [key, item] = iface === 'submission' ? (['offers', 'offer'] as const) : (['lines', 'line'] as const);
    const figures = iface === 'submission' ? submissionFigures : distributionFigures;
    const fromJson = JSON.parse(json).statement;
    const fromXml = xml.parse(xmlBody).response.statement;
    const csv = parseCsv(csvBody, { columns: true }) as Record<string, string>[];
    expect([fromJson[key].length, fromXml[key][item].length, csv.length]).toEqual([OFFERS, OFFERS, OFFERS]);
    for (const offerId of offerIds) {
      const jsonLine = fromJson[key].find((l: { offer_id: string }) => l.offer_id === offerId);
      const xmlLine = fromXml[key][item].find((l: { offer_id: string }) => l.offer_id === offerId);
      const csvLine = csv.find((l) => l.offer_id === offerId) as Record<string, string>;
      expect(jsonLine).toMatchObject({ vouchers_sold: Number(sold), vouchers_cancelled: Number(cancelled) });
      for (const f of figures) {
        const amount = { currency_code: 'USD', amount: expected[f].toString() };
        expect([f, jsonLine[f], xmlLine[f], csvLine[f]]).toEqual([f, amount, amount, amount.amount]);
      }
    }
    expect(fromJson.totals).toHaveLength(1);
    expect(fromJson.totals[0]).toMatchObject({ vouchers_sold: OFFERS * Number(sold), vouchers_cancelled: OFFERS * Number(cancelled) });
    for (const f of figures) {
      const total = { currency_code: 'USD', amount: (BigInt(OFFERS) * expected[f]).toString() };
      expect([f, fromJson.totals[0][f], fromXml.totals.total[0][f]]).toEqual([f, total, total]);
    }
    // The totals are past 2^53: 9,500 units at 10^12.
    expect(fromJson.totals[0].gross_sales.amount).toBe('9500000000000000');
    expect(BigInt(fromJson.totals[0].gross_sales.amount) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  }

  it('GET /statement, .xml and .csv on both interfaces state the exact figures past 2^53', async () => {
    const day = new Date().toISOString().slice(0, 10);
    for (const [iface, key] of [
      ['submission', sub.key],
      ['distribution', dist.key],
    ] as const) {
      const period = `?from=${day}&to=${day}`;
      const [json, xmlRes, csv] = await Promise.all(
        ['statement', 'statement.xml', 'statement.csv'].map((p) => get(`/${iface}/beta/${p}${period}`, key)),
      );
      for (const r of [json, xmlRes, csv]) expect([r.statusCode, r.body.slice(0, 300)]).toEqual([200, expect.anything()]);
      expectExact(iface, json.body, xmlRes.body, csv.body);
    }
  });

  it('the monthly run stores them exactly, and does not fail', async () => {
    // The sales and the cancellation moved to a past month: only a month that is over is stored.
    await sql`update vouchers set acquired_at = ${new Date(`${MONTH}-10T12:00:00Z`)},
        cancelled_at = case when cancelled_at is not null then ${new Date(`${MONTH}-20T12:00:00Z`)}::timestamptz end
      where offer_id in (${sql.join(offerIds)})`.execute(h.services.db);
    const result = await runMonthlyStatements(h.services, MONTH);
    expect(result).toMatchObject({ month: MONTH, clients: 2, stored: 2 });
    for (const [iface, key] of [
      ['submission', sub.key],
      ['distribution', dist.key],
    ] as const) {
      const list = (await get(`/${iface}/beta/statements`, key)).json().statements;
      const id = list.find((s: { month: string }) => s.month === MONTH).id;
      const [json, xmlRes, csv] = await Promise.all(['', '.xml', '.csv'].map((ext) => get(`/${iface}/beta/statements/${id}${ext}`, key)));
      for (const r of [json, xmlRes, csv]) expect(r.statusCode).toBe(200);
      expectExact(iface, json.body, xmlRes.body, csv.body);
    }
  });
});
