import { seedOffer } from '../../setup/fixtures';
import { harnessWithKeys, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

const WEEK = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** Issue 20 item 3: valid_days is kept at redemption (UTC); the other restrictions are shown, not enforced. */
describe('valid_days at redemption', () => {
  let h: Harness;
  let sub: { key: string; clientId: string };
  let dist: string;
  beforeAll(async () => {
    ({ h, dist, sub } = await harnessWithKeys());
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, key: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload: payload as object } : {}) });
  /** A voucher of an offer redeemable on these days, bought by the distributor. */
  const voucherOf = async (restrictions: Record<string, unknown>) => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 5, restrictions });
    const res = await call('POST', `${DIST}/orders`, dist, {
      order: { order_number: `vd-${offerId}`, customer_name: 'Ada Lovelace', items: [{ offer_id: offerId, quantity: 1 }] },
    });
    expect(res.statusCode).toBe(200);
    return { offerId, voucher: res.json().order.vouchers[0] as { id: string; redemption_code: string; print_url: string } };
  };
  const today = () => WEEK[new Date().getUTCDay()];

  it('redeems on a named weekday (UTC)', async () => {
    const { offerId, voucher } = await voucherOf({ valid_days: [today(), WEEK[(new Date().getUTCDay() + 1) % 7]] });
    const res = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${voucher.id}`, sub.key, { voucher: { status: 'redeemed' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().voucher.status).toBe('redeemed');
  });

  it('refuses another weekday with 409 outside_valid_days, and changes nothing (JSON and XML, every redeem path)', async () => {
    const others = WEEK.filter((d) => d !== today());
    const { offerId, voucher } = await voucherOf({ valid_days: others });
    const res = await call('PUT', `${SUB}/offers/${offerId}/vouchers/${voucher.id}`, sub.key, { voucher: { status: 'redeemed' } });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({ code: 'outside_valid_days', offer_id: offerId, valid_days: others, weekday: today() });
    const [{ advertiser_id: adv }] = await h.services.db.selectFrom('offers').select('advertiser_id').where('id', '=', offerId).execute();
    const xml = await h.app.inject({
      method: 'PUT',
      url: `${SUB}/advertisers/${adv}/vouchers/${voucher.redemption_code}`,
      headers: { 'x-service-api-key': sub.key, 'content-type': 'application/xml', accept: 'application/xml' },
      payload: '<voucher><status>redeemed</status></voucher>',
    });
    expect(xml.statusCode).toBe(409);
    expect(xml.body).toContain('<code>outside_valid_days</code>');
    const after = await call('GET', `${SUB}/offers/${offerId}/vouchers/${voucher.id}`, sub.key);
    expect(after.json().voucher).toMatchObject({ status: 'acquired', redeemed_at: null });
    // A voucher that cannot be redeemed today can still be cancelled.
    expect(
      (await call('PUT', `${DIST}/offers/${offerId}/vouchers/${voucher.id}`, dist, { voucher: { status: 'cancelled' } })).statusCode,
    ).toBe(200);
  });

  it("shows the restrictions, informational ones included, on the customer's voucher page and to publishers", async () => {
    const restrictions = { valid_days: ['monday', 'tuesday'], min_age: 21, appointment_required: true, new_customers_only: true };
    const { offerId, voucher } = await voucherOf(restrictions);
    const page = await h.app.inject({ method: 'GET', url: new URL(voucher.print_url).pathname });
    expect(page.statusCode).toBe(200);
    for (const text of ['Redeemable on monday, tuesday (UTC days)', 'Minimum age 21', 'Appointment required', 'New customers only'])
      expect(page.body).toContain(text);
    expect((await call('GET', `${DIST}/offers/${offerId}`, dist)).json().offer.restrictions).toEqual(restrictions);
  });
});
