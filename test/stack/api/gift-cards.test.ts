import { sql } from 'kysely';
import { submissionStatementRows } from '../../../store/statements';
import { seedOffer } from '../../setup/fixtures';
import { type Harness, harnessWithKeys } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

const USD = (amount: number) => ({ currency_code: 'USD', amount });

type Redemption = {
  id: string;
  amount: { currency_code: string; amount: number } | null;
  redeemed_at: string;
  rolled_back_at: string | null;
};
type VoucherView = {
  id: string;
  status: string;
  redemption_code: string;
  barcode: string;
  print_url: string;
  redeemed_at: string | null;
  balance: { currency_code: string; amount: number } | null;
  redemptions: Redemption[];
  redemption_count: number;
};

describe('gift cards keep a balance and take partial amounts', () => {
  let h: Harness;
  let dist: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => ({ h, dist, sub } = await harnessWithKeys()));
  afterAll(() => h.close());

  const call = (method: 'GET' | 'PUT' | 'POST', url: string, key: string, payload?: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key, ...headers }, ...(payload ? { payload: payload as object } : {}) });
  const giftCard = (overrides: Record<string, unknown> = {}) =>
    seedOffer(h, sub.clientId, {
      type: 'gift_card',
      price: USD(8000),
      value: USD(10000),
      discount: undefined,
      initial_quantity: 50,
      ...overrides,
    });
  const buy = async (offerId: string, quantity = 1) => {
    const res = await call('POST', `${DIST}/orders`, dist, {
      order: {
        order_number: `g-${Math.random().toString(36).slice(2)}`,
        customer_name: 'Grace Hopper',
        items: [{ offer_id: offerId, quantity }],
      },
    });
    expect(res.statusCode).toBe(200);
    return res.json().order as { id: string; vouchers: VoucherView[] };
  };
  const stockOf = async (offerId: string) =>
    (await h.services.db.selectFrom('offers').select('quantity_in_stock').where('id', '=', offerId).executeTakeFirstOrThrow())
      .quantity_in_stock!;
  const advertiserOf = async (offerId: string) =>
    (await h.services.db.selectFrom('offers').select('advertiser_id').where('id', '=', offerId).executeTakeFirstOrThrow()).advertiser_id;
  const redeem = (offerId: string, voucherId: string, amount?: unknown, headers?: Record<string, string>) =>
    call(
      'PUT',
      `${SUB}/offers/${offerId}/vouchers/${voucherId}`,
      sub.key,
      { voucher: { status: 'redeemed', ...(amount ? { amount } : {}) } },
      headers,
    );
  const liveSum = async (voucherId: string) =>
    Number(
      (
        await h.services.db
          .selectFrom('voucher_redemptions')
          .select(sql<string>`coalesce(sum(amount), 0)`.as('sum'))
          .where('voucher_id', '=', voucherId)
          .where('rolled_back_at', 'is', null)
          .executeTakeFirstOrThrow()
      ).sum,
    );

  it('starts at the offer value, takes parts on every path (JSON and XML), and is redeemed at zero', async () => {
    const offerId = await giftCard();
    const [v] = (await buy(offerId)).vouchers;
    expect(v).toMatchObject({ status: 'acquired', balance: USD(10000), redemptions: [], redemption_count: 0 });
    const adv = await advertiserOf(offerId);

    // By id under the offer, JSON.
    const first = await redeem(offerId, v.id, USD(2500));
    expect(first.statusCode).toBe(200);
    expect(first.json().voucher).toMatchObject({ status: 'acquired', redeemed_at: null, balance: USD(7500), redemption_count: 1 });
    expect(first.json().voucher.redemptions).toEqual([
      { id: expect.stringMatching(/^rdm_/), amount: USD(2500), redeemed_at: expect.any(String), rolled_back_at: null, staff_name: null },
    ]);

    // By redemption code under the advertiser, XML.
    const xml = await h.app.inject({
      method: 'PUT',
      url: `${SUB}/advertisers/${adv}/vouchers/${v.redemption_code}`,
      headers: { 'x-service-api-key': sub.key, 'content-type': 'application/xml', accept: 'application/xml' },
      payload: '<voucher><status>redeemed</status><amount><currency_code>USD</currency_code><amount>1500</amount></amount></voucher>',
    });
    expect(xml.statusCode).toBe(200);
    expect(xml.body).toContain('<balance><currency_code>USD</currency_code><amount>6000</amount></balance>');
    expect(xml.body).toMatch(
      /<redemptions><redemption><id>rdm_[^<]+<\/id><amount><currency_code>USD<\/currency_code><amount>2500<\/amount>/,
    );
    expect(xml.body).toContain('<rolled_back_at/>');

    // The customer's page shows the balance.
    const page = await h.app.inject({ method: 'GET', url: new URL(v.print_url).pathname });
    expect(page.body).toContain('Balance: <strong>$60.00</strong> of $100.00');

    // By barcode without an amount: the whole balance; the voucher is then redeemed.
    const rest = await call('PUT', `${SUB}/advertisers/${adv}/vouchers/${v.barcode}`, sub.key, { voucher: { status: 'redeemed' } });
    expect(rest.statusCode).toBe(200);
    expect(rest.json().voucher).toMatchObject({
      status: 'redeemed',
      redeemed_at: expect.any(String),
      balance: USD(0),
      redemption_count: 3,
    });
    expect(rest.json().voucher.redemptions[2].amount).toEqual(USD(6000));
    const again = await redeem(offerId, v.id, USD(1));
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0]).toMatchObject({ code: 'conflict', message: 'the voucher is already redeemed' });

    // The distributor that sold it sees the same, on the voucher and in its order.
    const seen = (await call('GET', `${DIST}/offers/${offerId}/vouchers/${v.id}`, dist)).json().voucher;
    expect(seen).toMatchObject({ status: 'redeemed', balance: USD(0), redemption_count: 3 });
    expect(await liveSum(v.id)).toBe(10000);
  });

  it('refuses more than the balance (409), another currency and amounts on deals (422), taking nothing', async () => {
    const offerId = await giftCard();
    const [v] = (await buy(offerId)).vouchers;
    expect((await redeem(offerId, v.id, USD(4000))).statusCode).toBe(200);
    const over = await redeem(offerId, v.id, USD(6001));
    expect(over.statusCode).toBe(409);
    expect(over.json().errors[0]).toMatchObject({ code: 'insufficient_balance', field: 'amount.amount', balance: USD(6000) });
    const euros = await redeem(offerId, v.id, { currency_code: 'EUR', amount: 100 });
    expect(euros.statusCode).toBe(422);
    expect(euros.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'amount.currency_code' });
    const zero = await redeem(offerId, v.id, USD(0));
    expect(zero.statusCode).toBe(422);
    expect(zero.json().errors[0].field).toBe('amount.amount');
    const cancelWithAmount = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${v.id}`, sub.key, {
      voucher: { status: 'cancelled', amount: USD(100) },
    });
    expect(cancelWithAmount.statusCode).toBe(422);
    const now = (await call('GET', `${SUB}/offers/${offerId}/vouchers/${v.id}`, sub.key)).json().voucher;
    expect(now).toMatchObject({ status: 'acquired', balance: USD(6000), redemption_count: 1 });

    const deal = await seedOffer(h, sub.clientId, { initial_quantity: 5 });
    const [d] = (await buy(deal)).vouchers;
    expect(d.balance).toBeNull();
    const onDeal = await redeem(deal, d.id, USD(100));
    expect(onDeal.statusCode).toBe(422);
    expect(onDeal.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'amount' });
    const whole = await redeem(deal, d.id);
    expect(whole.json().voucher).toMatchObject({ status: 'redeemed', balance: null, redemption_count: 1 });
    expect(whole.json().voucher.redemptions[0].amount).toBeNull();
  });

  it('a retry with the same Idempotency-Key takes once, even in parallel; the key with another amount is 422', async () => {
    const offerId = await giftCard();
    const [v] = (await buy(offerId)).vouchers;
    const key = { 'idempotency-key': `till-7:${v.id}:1` };
    const answers = await Promise.all(Array.from({ length: 10 }, () => redeem(offerId, v.id, USD(1000), key)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    const ids = new Set(answers.map((a) => (a.json().voucher as VoucherView).redemptions.map((r) => r.id).join()));
    expect(ids.size).toBe(1);
    expect(answers[0].json().voucher).toMatchObject({ balance: USD(9000), redemption_count: 1 });
    const other = await redeem(offerId, v.id, USD(2000), key);
    expect(other.statusCode).toBe(422);
    expect(other.json().errors[0].code).toBe('idempotency_key_reused');
    // The whole body is compared: the same key without amount (the whole balance) is another request (issue 34).
    const noAmount = await redeem(offerId, v.id, undefined, key);
    expect(noAmount.statusCode).toBe(422);
    // Refused by the one Idempotency-Key mechanism (api/plugins/idempotency.ts), which names the header, not the redemption.
    expect(noAmount.json().errors[0]).toMatchObject({ code: 'idempotency_key_reused', field: 'idempotency-key' });
    // A retry is answered with the first answer, byte for byte, saying so.
    const retry = await redeem(offerId, v.id, USD(1000), key);
    expect([retry.statusCode, retry.body, retry.headers['idempotent-replayed']]).toEqual([200, answers[0].body, 'true']);
    const badKey = await redeem(offerId, v.id, USD(1000), { 'idempotency-key': 'two words' });
    expect(badKey.statusCode).toBe(422);
    expect(badKey.json().errors[0].field).toBe('idempotency-key');
    // Without a key, each request is a redemption of its own.
    await redeem(offerId, v.id, USD(1000));
    await redeem(offerId, v.id, USD(1000));
    expect((await call('GET', `${SUB}/offers/${offerId}/vouchers/${v.id}`, sub.key)).json().voucher).toMatchObject({
      balance: USD(7000),
      redemption_count: 3,
    });
  });

  it('100 parallel debits over HTTP never overdraw: value − balance equals the live redemptions', async () => {
    const offerId = await giftCard({ price: USD(5000), value: USD(9000) });
    const [v] = (await buy(offerId)).vouchers;
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        fetch(`${base}${SUB}/offers/${offerId}/vouchers/${v.id}`, {
          method: 'PUT',
          headers: { 'x-service-api-key': sub.key, 'content-type': 'application/json' },
          body: JSON.stringify({ voucher: { status: 'redeemed', amount: USD(i % 2 ? 100 : 80) } }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { errors?: { code: string }[] } })),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.every((r) => r.status === 409 && r.body.errors![0].code === 'insufficient_balance')).toBe(true);
    const row = await h.services.db.selectFrom('vouchers').selectAll().where('id', '=', v.id).executeTakeFirstOrThrow();
    // 50 × 100 + 50 × 80 = 9,000: every debit fits, whatever the order, exactly to zero.
    expect(ok).toHaveLength(100);
    expect(row).toMatchObject({ balance_amount: 0, status: 'redeemed' });
    expect(await liveSum(v.id)).toBe(9000 - row.balance_amount!);
    // One more is refused: nothing left.
    expect((await redeem(offerId, v.id, USD(1))).statusCode).toBe(409);

    // And past the balance: 100 debits of 100 on 9,000 leave exactly 90 taken.
    const [w] = (await buy(offerId)).vouchers;
    const more = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${base}${SUB}/offers/${offerId}/vouchers/${w.id}`, {
          method: 'PUT',
          headers: { 'x-service-api-key': sub.key, 'content-type': 'application/json' },
          body: JSON.stringify({ voucher: { status: 'redeemed', amount: USD(100) } }),
        }).then((r) => r.status),
      ),
    );
    expect(more.filter((s) => s === 200)).toHaveLength(90);
    expect(more.filter((s) => s === 409)).toHaveLength(10);
    const after = await h.services.db.selectFrom('vouchers').selectAll().where('id', '=', w.id).executeTakeFirstOrThrow();
    expect(after.balance_amount).toBe(0);
    expect(await liveSum(w.id)).toBe(9000);
  });

  it('the database refuses a balance that does not match the live redemptions', async () => {
    const offerId = await giftCard();
    const [v] = (await buy(offerId)).vouchers;
    await expect(h.services.db.updateTable('vouchers').set({ balance_amount: 5000 }).where('id', '=', v.id).execute()).rejects.toThrow(
      /value - balance differs/,
    );
    await expect(h.services.db.updateTable('vouchers').set({ balance_amount: -1 }).where('id', '=', v.id).execute()).rejects.toThrow(
      /vouchers_gift_card_value/,
    );
  });

  it('a partly spent gift card is used: not cancelled alone; no value means the price', async () => {
    const offerId = await giftCard({ value: undefined });
    const [spent] = (await buy(offerId, 1)).vouchers;
    expect(spent.balance).toEqual(USD(8000));
    await redeem(offerId, spent.id, USD(500));
    const cancel = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${spent.id}`, sub.key, { voucher: { status: 'cancelled' } });
    expect(cancel.statusCode).toBe(409);
    expect(cancel.json().errors[0].message).toMatch(/partly redeemed/);
  });

  it("cancelling a partly spent card's order cancels it: the rest is voided (event), not spendable, refunded pro rata", async () => {
    const offerId = await giftCard(); // sold for 80.00, worth 100.00
    const order = await buy(offerId, 2);
    const [spent, fresh] = order.vouchers;
    expect((await redeem(offerId, spent.id, USD(2500))).statusCode).toBe(200);
    const stockBefore = await stockOf(offerId);
    const cancelled = await call('PUT', `${DIST}/orders/${order.id}`, dist, { order: { status: 'cancelled' } });
    expect(cancelled.statusCode).toBe(200);
    const byId = new Map((cancelled.json().order.vouchers as VoucherView[]).map((x) => [x.id, x]));
    // Nothing left to spend on either card; the spent card's redemption stays as it was.
    expect(byId.get(spent.id)).toMatchObject({ status: 'cancelled', balance: USD(0), redemption_count: 1 });
    expect(byId.get(fresh.id)).toMatchObject({ status: 'cancelled', balance: USD(0) });
    // The unused card's unit returns; the partly spent card's stays sold.
    expect(await stockOf(offerId)).toBe(stockBefore + 1);
    // A further redemption is refused, on every path, and takes nothing.
    const again = await redeem(offerId, spent.id, USD(500));
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0]).toMatchObject({ code: 'conflict' });
    const byCode = await call('PUT', `${SUB}/advertisers/${await advertiserOf(offerId)}/vouchers/${spent.redemption_code}`, sub.key, {
      voucher: { status: 'redeemed', amount: USD(100) },
    });
    expect(byCode.statusCode).toBe(409);
    expect(await liveSum(spent.id)).toBe(2500);
    // The event says what was voided, to the seller (feed) as to the advertiser.
    const events = await h.services.db
      .selectFrom('offer_events')
      .select(['type', 'data'])
      .where('offer_id', '=', offerId)
      .where('type', 'like', 'voucher.%')
      .orderBy('sequence')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['voucher.redeemed', 'voucher.balance_voided']);
    expect(events[1].data).toMatchObject({ voucher_id: spent.id, order_id: order.id, balance: USD(0), voided: USD(7500) });
    // The customer's page says Cancelled and shows no balance to spend, nor a code to scan.
    const page = await h.app.inject({ method: 'GET', url: new URL(spent.print_url).pathname });
    expect(page.body).toContain('Cancelled');
    expect(page.body).not.toContain('Balance');
    expect(page.body).not.toContain('<svg');
    // The statement refunds the unspent part of the price (75% of 80.00) and counts what was spent.
    const from = new Date(Date.now() - 86_400_000);
    const to = new Date(Date.now() + 86_400_000);
    const [line] = (await submissionStatementRows(h.services.db, sub.clientId, from, to)).filter((r) => r.offer_id === offerId);
    expect(line).toMatchObject({ sold: 2, cancelled: 2, gross: 16000n, refunds: 6000n + 8000n, redeemed_amount: 2500n });
  });
});
