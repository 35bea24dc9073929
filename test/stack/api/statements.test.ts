import { XMLParser } from 'fast-xml-parser';
import { sql } from 'kysely';
import { parse as parseCsv } from 'csv-parse/sync';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * GET /statement and /statement.csv on both interfaces (docs/statements.md). Vouchers, orders and
 * redemptions are written straight to the database at chosen times inside and outside October 2026,
 * so every figure below is worked out by hand from the seed.
 */

const PERIOD = '?from=2026-10-01&to=2026-10-31';
const USD = (amount: number) => ({ currency_code: 'USD', amount });
const EUR = (amount: number) => ({ currency_code: 'EUR', amount });
/** A statement figure: its amount is a decimal string (docs/statements.md "Money and rounding"). */
const sUSD = (amount: number) => ({ currency_code: 'USD', amount: String(amount) });
const sEUR = (amount: number) => ({ currency_code: 'EUR', amount: String(amount) });
const at = (t: string) => new Date(t);
/** The order of the statement's lines: by id, byte for byte (the SQL sorts with the C collation). */
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('statements: what was sold, cancelled and redeemed in a period', () => {
  let h: Harness;
  let adv: { key: string; clientId: string };
  let other: { key: string; clientId: string };
  let x: { key: string; clientId: string };
  let y: { key: string; clientId: string };
  const o: Record<'deal' | 'gift' | 'eur' | 'free' | 'othersDeal', string> = {} as never;
  let n = 0;

  /** Vouchers of one order of `client` (for `account`), each `[acquired_at, cancelled_at?]`; returns their ids. */
  async function order(client: string, account: string | null, offerId: string, times: Array<[string, string?]>, gift?: number) {
    const db = h.services.db;
    const orderId = `ord_st${++n}`;
    await db
      .insertInto('orders')
      .values({
        id: orderId,
        client_id: client,
        order_number: orderId,
        order_key: `wf-${orderId}`,
        account_id: account,
        customer_name: 'C',
        status: 'active',
      })
      .execute();
    const ids = times.map((_, i) => `vch_st${n}_${i}`);
    await db
      .insertInto('vouchers')
      .values(
        times.map(([acquired, cancelled], i) => ({
          id: ids[i],
          offer_id: offerId,
          order_id: orderId,
          client_id: client,
          account_id: account,
          counts_stock: true,
          redemption_code: `ST-${ids[i]}`,
          barcode: `ST${ids[i]}`,
          customer_name: 'C',
          status: cancelled ? ('cancelled' as const) : ('acquired' as const),
          acquired_at: at(acquired),
          cancelled_at: cancelled ? at(cancelled) : null,
          ...(gift ? { value_amount: gift, value_currency: 'USD', balance_amount: gift } : {}),
        })),
      )
      .execute();
    // The figures placing fixes on a voucher at sale (store/orders.ts), as the offer shows them now;
    // the revenues are left to the statement's rule for vouchers stored without them (migration 0031).
    await sql`update vouchers v set sale_price_amount = (o.document->'price'->>'amount')::bigint,
        sale_price_currency = o.document->'price'->>'currency_code',
        sale_rebate_amount = (o.document->'advertiser_rebate'->>'amount')::bigint,
        sale_rebate_currency = o.document->'advertiser_rebate'->>'currency_code'
      from offers o where o.id = v.offer_id and v.order_id = ${orderId}`.execute(db);
    return ids;
  }

  /** A redemption of a voucher at `redeemed`, rolled back at `rolledBack`; a gift card's balance follows its live ones. */
  async function redemption(voucherId: string, redeemed: string, rolledBack?: string, amount?: number) {
    const db = h.services.db;
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('voucher_redemptions')
        .values({
          id: `rdm_st${++n}`,
          voucher_id: voucherId,
          amount: amount ?? null,
          currency_code: amount ? 'USD' : null,
          redeemed_at: at(redeemed),
          rolled_back_at: rolledBack ? at(rolledBack) : null,
        })
        .execute();
      if (amount && !rolledBack)
        await trx
          .updateTable('vouchers')
          .set((eb) => ({ balance_amount: eb('balance_amount', '-', amount) }))
          .where('id', '=', voucherId)
          .execute();
    });
  }

  beforeAll(async () => {
    h = await createHarness();
    [adv, other, x, y] = [
      await h.client('submission'),
      await h.client('submission'),
      await h.client('distribution'),
      await h.client('distribution'),
    ];
    o.deal = await seedOffer(h, adv.clientId, { title: '=Dinner, "for two"', advertiser_rebate: USD(300) }); // price USD 4500
    o.gift = await seedOffer(h, adv.clientId, { type: 'gift_card', price: USD(4000), value: USD(5000), discount: undefined });
    o.eur = await seedOffer(h, adv.clientId, { price: EUR(2000), value: EUR(4000) });
    o.free = await seedOffer(h, adv.clientId, { type: 'coupon', price: undefined, value: undefined, discount: undefined });
    o.othersDeal = await seedOffer(h, other.clientId);
    await h.services.db
      .insertInto('accounts')
      .values({ id: 'acc_st1', client_id: x.clientId, name: 'Publisher One', status: 'active' })
      .execute();

    // The deal, for X's account: sold at the first and last instant of October, one cancelled in it;
    // sold the last second of September and cancelled in October; cancelled on November 1st; sold in November.
    const [, , d3] = await order(x.clientId, 'acc_st1', o.deal, [
      ['2026-10-01T00:00:00Z'],
      ['2026-10-31T23:59:59.999Z'],
      ['2026-10-10T12:00:00Z', '2026-10-12T00:00:00Z'],
      ['2026-09-30T23:59:59Z', '2026-10-15T00:00:00Z'],
      ['2026-10-20T00:00:00Z', '2026-11-01T00:00:00Z'],
      ['2026-11-01T00:00:00Z'],
    ]);
    const dNoAccount = await order(x.clientId, null, o.deal, [['2026-10-05T00:00:00Z'], ['2026-10-06T00:00:00Z']]);
    const [dY] = await order(y.clientId, null, o.deal, [['2026-10-07T00:00:00Z']]);
    const [dOld] = await order(x.clientId, null, o.deal, [['2026-09-01T00:00:00Z']]);
    // Deal redemptions: live in October (+1); made and rolled back in October (0); made in September,
    // rolled back in October (−1); made in October, rolled back in November (+1 here).
    await redemption(dNoAccount[0], '2026-10-08T00:00:00Z');
    await redemption(dNoAccount[1], '2026-10-08T00:00:00Z', '2026-10-09T00:00:00Z');
    await redemption(dOld, '2026-09-20T00:00:00Z', '2026-10-05T00:00:00Z');
    await redemption(dY, '2026-10-20T00:00:00Z', '2026-11-02T00:00:00Z');
    void d3;

    // The gift card (value 5000, price 4000): two sold in October, one in September.
    const [g1] = await order(x.clientId, 'acc_st1', o.gift, [['2026-10-02T00:00:00Z'], ['2026-10-03T00:00:00Z']], 5000);
    const [g2] = await order(x.clientId, 'acc_st1', o.gift, [['2026-09-01T00:00:00Z']], 5000);
    await redemption(g1, '2026-10-03T00:00:00Z', undefined, 1000);
    await redemption(g1, '2026-10-10T00:00:00Z', undefined, 500);
    await redemption(g2, '2026-09-25T00:00:00Z', undefined, 700);
    await redemption(g2, '2026-10-05T00:00:00Z', '2026-10-06T00:00:00Z', 2000);
    await redemption(g2, '2026-10-30T00:00:00Z', '2026-11-01T00:00:00Z', 300);

    await order(y.clientId, null, o.eur, [['2026-10-04T00:00:00Z'], ['2026-10-04T00:00:00Z', '2026-10-31T23:00:00Z']]);
    await order(x.clientId, null, o.free, [['2026-10-09T00:00:00Z']]);
    await order(x.clientId, 'acc_st1', o.othersDeal, [['2026-10-09T00:00:00Z']]);
  });
  afterAll(() => h.close());

  const get = (url: string, key: string) => h.app.inject({ method: 'GET', url, headers: { 'x-service-api-key': key } });
  const ok = async (url: string, key: string) => {
    const res = await get(url, key);
    expect(res.statusCode).toBe(200);
    return res;
  };

  const submissionExpected = {
    from: '2026-10-01',
    to: '2026-10-31',
    offers: [
      // Sold 3+2+1+2 = 7 in October (X's account 3 + the one cancelled in November, X without account 2, Y 1); cancelled 2.
      // Redeemed: +1 (live) +0 (made and rolled back) −1 (September's, rolled back) +1 (rolled back in November).
      // Rebate: 300 × (7 − 2).
      {
        offer_id: '',
        key: 'deal',
        title: '=Dinner, "for two"',
        currency_code: 'USD',
        vouchers_sold: 7,
        vouchers_cancelled: 2,
        vouchers_redeemed: 1,
        gross_sales: sUSD(31500),
        refunds: sUSD(9000),
        net_sales: sUSD(22500),
        redeemed_amount: sUSD(0),
        advertiser_rebate: sUSD(1500),
      },
      // Two sold at 4000; redemptions 1000 + 500 live, 2000 made and rolled back, 300 rolled back in November: 4 and 1800.
      {
        offer_id: '',
        key: 'gift',
        title: 'Two-course dinner for two',
        currency_code: 'USD',
        vouchers_sold: 2,
        vouchers_cancelled: 0,
        vouchers_redeemed: 3,
        gross_sales: sUSD(8000),
        refunds: sUSD(0),
        net_sales: sUSD(8000),
        redeemed_amount: sUSD(1800),
        advertiser_rebate: sUSD(0),
      },
      {
        offer_id: '',
        key: 'eur',
        title: 'Two-course dinner for two',
        currency_code: 'EUR',
        vouchers_sold: 2,
        vouchers_cancelled: 1,
        vouchers_redeemed: 0,
        gross_sales: sEUR(4000),
        refunds: sEUR(2000),
        net_sales: sEUR(2000),
        redeemed_amount: sEUR(0),
        advertiser_rebate: sEUR(0),
      },
      {
        offer_id: '',
        key: 'free',
        title: 'Two-course dinner for two',
        currency_code: null,
        vouchers_sold: 1,
        vouchers_cancelled: 0,
        vouchers_redeemed: 0,
        gross_sales: null,
        refunds: null,
        net_sales: null,
        redeemed_amount: null,
        advertiser_rebate: null,
      },
    ],
  };

  it('submission: every figure per own offer, totals per currency that are the sums of the lines', async () => {
    const { statement } = (await ok(`${SUB}/statement${PERIOD}`, adv.key)).json();
    const expected = submissionExpected.offers
      .map(({ key, ...line }) => ({ ...line, offer_id: o[key as keyof typeof o] }))
      .sort((a, b) => byId(a.offer_id, b.offer_id));
    expect(statement.offers).toEqual(expected);
    expect(statement.totals).toEqual([
      {
        currency_code: 'EUR',
        vouchers_sold: 2,
        vouchers_cancelled: 1,
        vouchers_redeemed: 0,
        gross_sales: sEUR(4000),
        refunds: sEUR(2000),
        net_sales: sEUR(2000),
        redeemed_amount: sEUR(0),
        advertiser_rebate: sEUR(0),
      },
      {
        currency_code: 'USD',
        vouchers_sold: 9,
        vouchers_cancelled: 2,
        vouchers_redeemed: 4,
        gross_sales: sUSD(39500),
        refunds: sUSD(9000),
        net_sales: sUSD(30500),
        redeemed_amount: sUSD(1800),
        advertiser_rebate: sUSD(1500),
      },
      {
        currency_code: null,
        vouchers_sold: 1,
        vouchers_cancelled: 0,
        vouchers_redeemed: 0,
        gross_sales: null,
        refunds: null,
        net_sales: null,
        redeemed_amount: null,
        advertiser_rebate: null,
      },
    ]);
    expect(statement).toMatchObject({ from: '2026-10-01', to: '2026-10-31' });

    // The other advertiser sees only its own offer (sold once, to X).
    const theirs = (await ok(`${SUB}/statement${PERIOD}`, other.key)).json().statement;
    expect(theirs.offers.map((l: { offer_id: string; vouchers_sold: number }) => [l.offer_id, l.vouchers_sold])).toEqual([
      [o.othersDeal, 1],
    ]);

    // A period holding none of it: empty.
    expect((await ok(`${SUB}/statement?from=2026-12-01&to=2026-12-31`, adv.key)).json().statement).toEqual({
      from: '2026-12-01',
      to: '2026-12-31',
      offers: [],
      totals: [],
    });
  });

  it('distribution: per offer and account of the own orders only, revenues on net units at the per-unit figures', async () => {
    const { statement } = (await ok(`${DIST}/statement${PERIOD}`, x.key)).json();
    const line = (
      offer: string,
      account: string | null,
      cur: string | null,
      sold: number,
      cancelled: number,
      price: number,
      dist: number,
      acc: number,
    ) => {
      const m = (amount: number) => (cur === null ? null : { currency_code: cur, amount: String(amount) });
      return {
        offer_id: offer,
        account_id: account,
        currency_code: cur,
        vouchers_sold: sold,
        vouchers_cancelled: cancelled,
        gross_sales: m(sold * price),
        net_sales: m((sold - cancelled) * price),
        distributor_revenue: m((sold - cancelled) * dist),
        account_revenue: m((sold - cancelled) * acc),
      };
    };
    // Per unit, as GET /offers shows: 20 % of the price, and 50 % of that for the account.
    const expected = [
      line(o.deal, null, 'USD', 2, 0, 4500, 900, 450),
      line(o.deal, 'acc_st1', 'USD', 4, 2, 4500, 900, 450),
      line(o.gift, 'acc_st1', 'USD', 2, 0, 4000, 800, 400),
      line(o.free, null, null, 1, 0, 0, 0, 0),
      line(o.othersDeal, 'acc_st1', 'USD', 1, 0, 4500, 900, 450),
    ].sort((a, b) => byId(a.offer_id, b.offer_id) || (a.account_id === null ? -1 : 1));
    expect(statement.lines).toEqual(expected);
    expect(statement.totals).toEqual([
      {
        currency_code: 'USD',
        vouchers_sold: 9,
        vouchers_cancelled: 2,
        gross_sales: sUSD(9000 + 18000 + 8000 + 4500),
        net_sales: sUSD(9000 + 9000 + 8000 + 4500),
        distributor_revenue: sUSD(1800 + 1800 + 1600 + 900),
        account_revenue: sUSD(900 + 900 + 800 + 450),
      },
      {
        currency_code: null,
        vouchers_sold: 1,
        vouchers_cancelled: 0,
        gross_sales: null,
        net_sales: null,
        distributor_revenue: null,
        account_revenue: null,
      },
    ]);
    // The per-unit figures are those of the distribution offer view.
    const view = (await ok(`${DIST}/offers/${o.gift}`, x.key)).json().offer;
    expect([view.distributor_revenue, view.account_revenue]).toEqual([USD(800), USD(400)]);

    // Y sees its own sales only: the deal once, the EUR deal twice with one cancelled (net 1 × 2000: 400 and 200).
    const ys = (await ok(`${DIST}/statement${PERIOD}`, y.key)).json().statement;
    expect(ys.lines).toEqual(
      [line(o.deal, null, 'USD', 1, 0, 4500, 900, 450), line(o.eur, null, 'EUR', 2, 1, 2000, 400, 200)].sort((a, b) =>
        byId(a.offer_id, b.offer_id),
      ),
    );
  });

  it('CSV and XML carry the same numbers as JSON, on both interfaces', async () => {
    for (const [prefix, key, root] of [
      [SUB, adv.key, 'offers'],
      [DIST, x.key, 'lines'],
    ] as const) {
      const json = (await ok(`${prefix}/statement${PERIOD}`, key)).json().statement;
      const lines = json[root] as Array<Record<string, unknown>>;

      const csvRes = await ok(`${prefix}/statement.csv${PERIOD}`, key);
      expect(csvRes.headers['content-type']).toBe('text/csv; charset=utf-8');
      const [header, ...rows] = parseCsv(csvRes.body) as string[][];
      expect(header).toEqual(Object.keys(lines[0]));
      const asCells = (line: Record<string, unknown>) =>
        Object.values(line).map((v) => (v === null ? '' : typeof v === 'object' ? (v as { amount: string }).amount : String(v)));
      // A title that starts with = is escaped against spreadsheet formulas, the rest as in JSON.
      expect(rows).toEqual(
        lines.map((l) => asCells({ ...l, ...(typeof l.title === 'string' && l.title.startsWith('=') ? { title: `'${l.title}` } : {}) })),
      );

      const xmlRes = await ok(`${prefix}/statement.xml${PERIOD}`, key);
      expect(xmlRes.headers['content-type']).toMatch(/^application\/xml/);
      const xml = new XMLParser({ parseTagValue: false, isArray: (name) => ['offer', 'line', 'total'].includes(name) }).parse(xmlRes.body)
        .response.statement;
      const asXml = (v: unknown): unknown =>
        v === null
          ? ''
          : typeof v === 'object'
            ? Object.fromEntries(Object.entries(v as object).map(([k, w]) => [k, asXml(w)]))
            : String(v);
      expect(xml[root][root === 'offers' ? 'offer' : 'line']).toEqual(lines.map(asXml));
      expect(xml.totals.total).toEqual(json.totals.map(asXml));
    }
  });

  it('refuses a bad period with 422 naming the field', async () => {
    const refused = async (query: string, field: string, message: RegExp) => {
      for (const url of [`${SUB}/statement${query}`, `${DIST}/statement.csv${query}`]) {
        const res = await get(url, url.startsWith(SUB) ? adv.key : x.key);
        expect(res.statusCode).toBe(422);
        expect(res.json().errors[0]).toMatchObject({ code: 'invalid_field', field });
        expect(res.json().errors[0].message).toMatch(message);
      }
    };
    await refused('?from=2026-10-31&to=2026-10-01', 'to', /before from/);
    await refused('?from=2026-01-01&to=2027-01-02', 'to', /367 days.*at most 366/);
    await refused('?from=2026-02-30&to=2026-03-01', 'from', /real calendar date/);
    await refused('?to=2026-03-01', 'from', /./);
    // 366 days (a leap year) is allowed.
    await ok(`${SUB}/statement?from=2028-01-01&to=2028-12-31`, adv.key);
  });
});
