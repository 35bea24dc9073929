import { sql } from 'kysely';
import { addDays, utcDay } from '../../../domain/dates';
import { seedOffer } from '../../setup/fixtures';
import { type Harness, harnessWithKeys } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * The statements read what the service itself writes: an order placed, a voucher redeemed and the
 * order cancelled through the API (its workflow) show in today's statement of both sides.
 */

const USD = (amount: number) => ({ currency_code: 'USD', amount });
/** A statement figure: its amount is a decimal string (docs/statements.md "Money and rounding"). */
const sUSD = (amount: number) => ({ currency_code: 'USD', amount: String(amount) });

describe('statements of orders placed, redeemed and cancelled through the API', () => {
  let h: Harness;
  let dist: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => ({ h, dist, sub } = await harnessWithKeys()));
  afterAll(() => h.close());

  const call = (method: 'GET' | 'PUT' | 'POST', url: string, key: string, payload?: object) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload } : {}) });

  it('counts the sale, the redemption and the cancellation on both interfaces', async () => {
    const offerId = await seedOffer(h, sub.clientId, { advertiser_rebate: USD(300) }); // price USD 4500
    const placed = await call('POST', `${DIST}/orders`, dist, {
      order: { order_number: 'st-journey', customer_name: 'Ada', items: [{ offer_id: offerId, quantity: 3 }] },
    });
    expect(placed.statusCode).toBe(200);
    const order = placed.json().order as { id: string; vouchers: Array<{ id: string }> };
    const redeemed = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${order.vouchers[0].id}`, sub.key, {
      voucher: { status: 'redeemed' },
    });
    expect(redeemed.statusCode).toBe(200);
    const cancelled = await call('PUT', `${DIST}/orders/${order.id}`, dist, { order: { status: 'cancelled' } });
    expect(cancelled.statusCode).toBe(200);

    // Yesterday to tomorrow, so a run across midnight UTC still holds every event.
    const period = `?from=${addDays(utcDay(), -1)}&to=${addDays(utcDay(), 1)}`;
    const mine = (await call('GET', `${SUB}/statement${period}`, sub.key)).json().statement;
    expect(mine.offers).toEqual([
      {
        offer_id: offerId,
        title: 'Two-course dinner for two',
        currency_code: 'USD',
        vouchers_sold: 3,
        vouchers_cancelled: 2, // the redeemed voucher stays redeemed when its order is cancelled
        vouchers_redeemed: 1,
        gross_sales: sUSD(13500),
        refunds: sUSD(9000),
        net_sales: sUSD(4500),
        redeemed_amount: sUSD(0),
        advertiser_rebate: sUSD(300),
      },
    ]);
    const theirs = (await call('GET', `${DIST}/statement${period}`, dist)).json().statement;
    expect(theirs.lines).toEqual([
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
  });

  it('keeps each sale at the price it was sold at when the offer price changes later', async () => {
    const offerId = await seedOffer(h, sub.clientId, { advertiser_rebate: USD(300) }); // price USD 4500
    const buy = async (n: string, quantity: number) => {
      const res = await call('POST', `${DIST}/orders`, dist, {
        order: { order_number: n, customer_name: 'Ada', items: [{ offer_id: offerId, quantity }] },
      });
      expect(res.statusCode).toBe(200);
    };
    await buy('st-price-1', 2);
    // A new price and rebate (an edit while withdrawn, written here to the stored document).
    await sql`update offers set document = document || ${JSON.stringify({ price: USD(6000), advertiser_rebate: USD(500) })}::jsonb
      where id = ${offerId}`.execute(h.services.db);
    await buy('st-price-2', 1);
    const shown = (await call('GET', `${DIST}/offers/${offerId}`, dist)).json().offer;
    expect(shown.distributor_revenue).toEqual(USD(1200)); // the view now shows the new price's share

    const period = `?from=${addDays(utcDay(), -1)}&to=${addDays(utcDay(), 1)}`;
    const mine = (await call('GET', `${SUB}/statement${period}`, sub.key)).json().statement;
    const line = mine.offers.find((l: { offer_id: string }) => l.offer_id === offerId);
    // 2 × 4500 + 1 × 6000; rebates 2 × 300 + 1 × 500.
    expect(line).toMatchObject({ vouchers_sold: 3, gross_sales: sUSD(15000), net_sales: sUSD(15000), advertiser_rebate: sUSD(1100) });
    const theirs = (await call('GET', `${DIST}/statement${period}`, dist)).json().statement;
    const mineLine = theirs.lines.find((l: { offer_id: string }) => l.offer_id === offerId);
    // 2 × 900 + 1 × 1200, and half of each for the account.
    expect(mineLine).toMatchObject({
      vouchers_sold: 3,
      gross_sales: sUSD(15000),
      distributor_revenue: sUSD(3000),
      account_revenue: sUSD(1500),
    });
    // The lines still add up to the totals.
    const sum = (lines: Array<{ net_sales: { amount: string } }>) => lines.reduce((t, l) => t + BigInt(l.net_sales.amount), 0n);
    expect(theirs.totals.find((t: { currency_code: string }) => t.currency_code === 'USD').net_sales).toEqual(
      sUSD(Number(sum(theirs.lines))),
    );
  });
});
