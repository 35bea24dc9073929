import { addDays, utcDay } from '../../../domain/dates';
import { startOfLocalDay } from '../../../domain/time-zones';
import { admin, adminJson } from '../../setup/admin';
import { setEndpoint } from '../../../store/callback-endpoints';
import { CallbackReceiver } from '../../setup/callback-receiver';
import { advertiserId, Counter, createStaff, ORIGIN, type StaffCreated } from '../../setup/counter';
import { eventually } from '../../setup/eventually';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { type Harness, harnessWithKeys } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * The merchant's counter through the API and its pages (app.inject): the staff API, signing in,
 * redeeming with the API's rules, the staff member recorded in the voucher, the feed, callbacks
 * and the statement, and every cross-advertiser attempt refused (docs/merchant-counter.md).
 */

const USD = (amount: number) => ({ currency_code: 'USD', amount });
const advertiser = (name: string, postal_code = '10001') => ({
  ...(validOffer().advertiser as Record<string, unknown>),
  name,
  redemption_locations: [{ address_line_1: '1 Main St', city: 'New York', state_code: 'NY', postal_code, country_code: 'US' }],
});

describe('merchant counter (API and pages)', () => {
  let h: Harness;
  let dist: string;
  let subA: { key: string; clientId: string };
  let subB: { key: string; clientId: string };
  /** Offers: A's deal and gift card (advertiser "Bistro A"), A's other advertiser's deal, client B's deal. */
  const offers = {} as Record<'deal' | 'gift' | 'otherAdvertiser' | 'otherClient', string>;
  const staff = {} as Record<'a' | 'otherAdvertiser' | 'otherClient' | 'elsewhere', StaffCreated>;
  let advA: string;

  const api = (method: 'GET' | 'POST' | 'DELETE' | 'PUT', url: string, key: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: { 'x-service-api-key': key }, ...(payload ? { payload: payload as object } : {}) });
  const buy = async (offerId: string) => {
    const res = await api('POST', `${DIST}/orders`, dist, {
      order: {
        order_number: `m-${Math.random().toString(36).slice(2)}`,
        customer_name: 'Ada Lovelace',
        items: [{ offer_id: offerId, quantity: 1 }],
      },
    });
    expect(res.statusCode).toBe(200);
    return res.json().order.vouchers[0] as { id: string; redemption_code: string; barcode: string };
  };
  const voucherOf = async (offerId: string, id: string, key = subA.key) =>
    (await api('GET', `${SUB}/offers/${offerId}/vouchers/${id}`, key)).json().voucher;

  beforeAll(async () => {
    ({ h, dist, sub: subA } = await harnessWithKeys());
    subB = await h.client('submission');
    offers.deal = await seedOffer(h, subA.clientId, { advertiser: advertiser('Bistro A'), initial_quantity: 50 });
    offers.gift = await seedOffer(h, subA.clientId, {
      advertiser: advertiser('Bistro A'),
      type: 'gift_card',
      price: USD(5000),
      value: USD(5000),
      discount: undefined,
      initial_quantity: 10,
    });
    offers.otherAdvertiser = await seedOffer(h, subA.clientId, { advertiser: advertiser('Cafe Two'), initial_quantity: 10 });
    offers.otherClient = await seedOffer(h, subB.clientId, { advertiser: advertiser('Bistro B'), initial_quantity: 10 });
    advA = await advertiserId(h, subA.key, 'Bistro A');
    staff.a = await createStaff(h, subA.key, { name: 'Ana', advertiser_id: advA });
    staff.otherAdvertiser = await createStaff(h, subA.key, { name: 'Caro', advertiser_id: await advertiserId(h, subA.key, 'Cafe Two') });
    staff.otherClient = await createStaff(h, subB.key, { name: 'Bea', advertiser_id: await advertiserId(h, subB.key, 'Bistro B') });
    staff.elsewhere = await createStaff(h, subA.key, { name: 'Eli', advertiser_id: advA, postal_codes: ['90210'] });
  });
  afterAll(() => h.close());

  it('creates, lists and reads staff with a one-time sign-in; refuses an advertiser that is not the client’s and unknown fields', async () => {
    expect(staff.a.code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(staff.a.url).toMatch(new RegExp(`/merchant/sign-in/${staff.a.code}$`));
    const list = (await api('GET', `${SUB}/redemption_staff?advertiser_id=${advA}`, subA.key)).json();
    expect(list.redemption_staff.map((s: { name: string }) => s.name).sort()).toEqual(['Ana', 'Eli']);
    expect(JSON.stringify(list)).not.toContain(staff.a.code);
    const one = list.redemption_staff.find((s: { id: string }) => s.id === staff.a.id);
    expect(one).toEqual({
      id: staff.a.id,
      name: 'Ana',
      advertiser_id: advA,
      status: 'active',
      postal_codes: null,
      created_at: expect.any(String),
    });
    const foreign = await api('POST', `${SUB}/redemption_staff`, subA.key, {
      redemption_staff: { name: 'X', advertiser_id: await advertiserId(h, subB.key, 'Bistro B') },
    });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().errors[0].field).toBe('advertiser_id');
    const unknown = await api('POST', `${SUB}/redemption_staff`, subA.key, {
      redemption_staff: { name: 'X', advertiser_id: advA, pin: '1234' },
    });
    expect(unknown.statusCode).toBe(422);
    expect((await api('GET', `${DIST}/redemption_staff`, dist)).statusCode).toBe(404);
  });

  it('signs in once per code; a wrong code is 401 and counts against the address, 429 past ten', async () => {
    const s = await createStaff(h, subA.key, { name: 'Once', advertiser_id: advA });
    const link = await h.app.inject({ method: 'GET', url: new URL(s.url).pathname });
    expect(link.statusCode).toBe(200);
    expect(link.body).toContain(`value="${s.code}"`);
    expect(link.headers['content-security-policy']).toContain("script-src 'self' 'wasm-unsafe-eval'");
    const c = await Counter.signIn(h, s.code.toLowerCase().replace(/-/g, ' '), '10.9.0.1');
    expect(c.cookie).toMatch(/^merchant_session=/);
    const again = await h.app.inject({
      method: 'POST',
      url: '/merchant/sign-in',
      headers: { origin: ORIGIN },
      payload: { code: s.code },
      remoteAddress: '10.9.0.1',
    });
    expect(again.statusCode).toBe(401);
    const ip = '10.9.0.2';
    for (let i = 0; i < 10; i++)
      expect(
        (
          await h.app.inject({
            method: 'POST',
            url: '/merchant/sign-in',
            headers: { origin: ORIGIN },
            payload: { code: `WRONG-${i}` },
            remoteAddress: ip,
          })
        ).statusCode,
      ).toBe(401);
    const fresh = (await api('POST', `${SUB}/redemption_staff/${s.id}/sign_in`, subA.key)).json().redemption_staff.sign_in.code as string;
    const blocked = await h.app.inject({
      method: 'POST',
      url: '/merchant/sign-in',
      headers: { origin: ORIGIN },
      payload: { code: fresh },
      remoteAddress: ip,
    });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Another address signs in with it.
    await Counter.signIn(h, fresh, '10.9.0.3');
  });

  it('redeems a deal at the counter once, with the API’s refusal the second time, and undoes it', async () => {
    const c = await Counter.signIn(h, staff.a.code);
    const v = await buy(offers.deal);
    const looked = await c.lookup(v.barcode);
    expect(looked.statusCode).toBe(200);
    expect(looked.body).toContain('Valid');
    const done = await c.redeem(v.id);
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Redeemed');
    const twice = await c.redeem(v.id);
    expect(twice.statusCode).toBe(409);
    expect(twice.body).toContain('Already redeemed');
    expect(twice.body).toContain('by Ana at the counter');
    const after = await voucherOf(offers.deal, v.id);
    expect(after.status).toBe('redeemed');
    expect(after.redemptions[0].staff_name).toBe('Ana');
    const undone = await c.undo(v.id, after.redemptions[0].id);
    expect(undone.statusCode).toBe(200);
    expect(undone.body).toContain('Redemption undone');
    expect((await voucherOf(offers.deal, v.id)).status).toBe('acquired');
    const today = (await c.get('/merchant')).body;
    expect(today).toContain(v.redemption_code);
    expect(today).toContain('(undone)');
  });

  it('takes a gift card in two parts, never more than the balance', async () => {
    const c = await Counter.signIn(
      h,
      (await api('POST', `${SUB}/redemption_staff/${staff.a.id}/sign_in`, subA.key)).json().redemption_staff.sign_in.code,
    );
    const v = await buy(offers.gift);
    expect((await c.redeem(v.id, '20.00')).body).toContain('Balance left: $30.00');
    const over = await c.redeem(v.id, '30.01');
    expect(over.statusCode).toBe(409);
    expect(over.body).toContain('More than the balance');
    // Money in the page's own format, as the card shows it, not minor units.
    expect(over.body).toContain('the gift card has $30.00 left; $30.01 asked');
    expect((await c.redeem(v.id, '30')).body).toContain('Balance left: $0.00');
    const after = await voucherOf(offers.gift, v.id);
    expect(after).toMatchObject({ status: 'redeemed', balance: USD(0) });
    expect(after.redemptions.map((r: { amount: unknown }) => r.amount)).toEqual([USD(2000), USD(3000)]);
  });

  it('refuses outside the valid days and after expiry with the API’s statuses, saying so', async () => {
    const days = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
    const notToday = days[(new Date().getUTCDay() + 1) % 7];
    const offerId = await seedOffer(h, subA.clientId, { advertiser: advertiser('Bistro A'), restrictions: { valid_days: [notToday] } });
    const c = await Counter.signIn(
      h,
      (await api('POST', `${SUB}/redemption_staff/${staff.a.id}/sign_in`, subA.key)).json().redemption_staff.sign_in.code,
    );
    const v = await buy(offerId);
    const looked = await c.lookup(v.redemption_code);
    expect(looked.body).toContain(`Redeemable on ${notToday} (UTC days)`);
    const res = await c.redeem(v.id);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('Not valid today');
    const w = await buy(offers.deal);
    await h.services.db.updateTable('vouchers').set({ expiration_date: '2001-01-01' }).where('id', '=', w.id).execute();
    expect((await c.lookup(w.redemption_code)).body).toContain('Expired');
    const late = await c.redeem(w.id);
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('Expired');
  });

  describe('refuses every cross-advertiser attempt', () => {
    let ids: Record<keyof typeof offers, { id: string; redemption_code: string; barcode: string }>;
    let counters: Record<Who, Counter>;
    beforeAll(async () => {
      ids = {
        deal: await buy(offers.deal),
        gift: await buy(offers.gift),
        otherAdvertiser: await buy(offers.otherAdvertiser),
        otherClient: await buy(offers.otherClient),
      };
      counters = {
        a: await Counter.signIn(
          h,
          (await api('POST', `${SUB}/redemption_staff/${staff.a.id}/sign_in`, subA.key)).json().redemption_staff.sign_in.code,
        ),
        otherAdvertiser: await Counter.signIn(h, staff.otherAdvertiser.code),
        otherClient: await Counter.signIn(h, staff.otherClient.code),
      };
    });

    type Who = 'a' | 'otherAdvertiser' | 'otherClient';
    type Which = keyof typeof offers;
    const OWNER: Record<Which, Who> = { deal: 'a', gift: 'a', otherAdvertiser: 'otherAdvertiser', otherClient: 'otherClient' };
    const ACTIONS = ['look up by code', 'look up by barcode', 'redeem', 'undo'] as const;
    const pageCases: [Who, Which, (typeof ACTIONS)[number]][] = (['a', 'otherAdvertiser', 'otherClient'] as const).flatMap((who) =>
      (Object.keys(OWNER) as Which[])
        .filter((which) => OWNER[which] !== who)
        .flatMap((which) => ACTIONS.map((what): [Who, Which, (typeof ACTIONS)[number]] => [who, which, what])),
    );
    it.each(pageCases)('the page: staff of %s, voucher of %s, %s → 404, nothing changes', async (who, which, what) => {
      const c = counters[who];
      const v = ids[which];
      const res =
        what === 'look up by code'
          ? await c.lookup(v.redemption_code)
          : what === 'look up by barcode'
            ? await c.lookup(v.barcode)
            : what === 'redeem'
              ? await c.redeem(v.id, which === 'gift' ? '1' : undefined)
              : await c.undo(v.id, 'rdm_x');
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('No such voucher');
      expect(res.body).not.toContain('Ada Lovelace');
      const owner = OWNER[which] === 'otherClient' ? subB.key : subA.key;
      expect((await voucherOf(offers[which], v.id, owner)).redemptions).toEqual([]);
    });

    const apiCases = [
      ['POST', (id: string) => `/redemption_staff/${id}/sign_in`],
      ['DELETE', (id: string) => `/redemption_staff/${id}`],
    ] as const;
    it.each(apiCases)('the staff API: client B %s on client A’s staff → 404, A’s staff unchanged', async (method, path) => {
      const res = await api(method, `${SUB}${path(staff.a.id)}`, subB.key);
      expect(res.statusCode).toBe(404);
      const mine = (await api('GET', `${SUB}/redemption_staff`, subA.key)).json().redemption_staff as { id: string; status: string }[];
      expect(mine.find((s) => s.id === staff.a.id)?.status).toBe('active');
      expect(
        (await api('GET', `${SUB}/redemption_staff`, subB.key)).json().redemption_staff.map((s: { id: string }) => s.id),
      ).not.toContain(staff.a.id);
    });

    it('a staff member limited to other postal codes sees the voucher but may not redeem it (403)', async () => {
      const c = await Counter.signIn(h, staff.elsewhere.code);
      const v = ids.deal;
      expect((await c.lookup(v.redemption_code)).body).toContain('Not at this counter');
      const res = await c.redeem(v.id);
      expect(res.statusCode).toBe(403);
      expect((await voucherOf(offers.deal, v.id)).status).toBe('acquired');
    });

    it('refuses a form from another origin, or without the session’s CSRF token (403)', async () => {
      const c = await Counter.signIn(
        h,
        (await api('POST', `${SUB}/redemption_staff/${staff.a.id}/sign_in`, subA.key)).json().redemption_staff.sign_in.code,
      );
      const { csrf, attempt } = await c.tokens();
      const url = `/merchant/vouchers/${ids.deal.id}/redeem`;
      expect((await c.post(url, { csrf, attempt }, { origin: 'https://evil.example' })).statusCode).toBe(403);
      expect((await c.post(url, { csrf, attempt }, {})).statusCode).toBe(403);
      expect((await c.post(url, { csrf: 'x'.repeat(43), attempt })).statusCode).toBe(403);
      expect((await voucherOf(offers.deal, ids.deal.id)).status).toBe('acquired');
    });
  });

  it('a revoked staff member is signed out at once; an expired session too', async () => {
    const s = await createStaff(h, subA.key, { name: 'Temp', advertiser_id: advA });
    const c = await Counter.signIn(h, s.code);
    expect((await c.get('/merchant')).body).toContain('Temp');
    const revoked = await api('DELETE', `${SUB}/redemption_staff/${s.id}`, subA.key);
    expect(revoked.json().redemption_staff.status).toBe('revoked');
    expect((await c.lookup('anything')).statusCode).toBe(401);
    expect((await api('POST', `${SUB}/redemption_staff/${s.id}/sign_in`, subA.key)).statusCode).toBe(409);
    const t = await createStaff(h, subA.key, { name: 'Late', advertiser_id: advA });
    const d = await Counter.signIn(h, t.code);
    await h.services.db
      .updateTable('staff_sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('staff_id', '=', t.id)
      .execute();
    expect((await d.lookup('anything')).statusCode).toBe(401);
  });

  it('a session that ended mid-redemption says so, redeems nothing, and signs in back to the voucher', async () => {
    const s = await createStaff(h, subA.key, { name: 'Dee', advertiser_id: advA });
    const c = await Counter.signIn(h, s.code);
    const v = await buy(offers.deal);
    const { csrf, attempt } = await c.tokens(`/merchant/vouchers?code=${v.id}`);
    await h.services.db
      .updateTable('staff_sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('staff_id', '=', s.id)
      .execute();
    const res = await c.post(`/merchant/vouchers/${v.id}/redeem`, { csrf, attempt });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('Your session ended, so nothing was redeemed');
    expect(res.body).toContain(`name="next" value="/merchant/vouchers?code=${v.id}"`);
    expect((await voucherOf(offers.deal, v.id)).status).toBe('acquired');
    const code = (await api('POST', `${SUB}/redemption_staff/${s.id}/sign_in`, subA.key)).json().redemption_staff.sign_in.code;
    const back = await h.app.inject({
      method: 'POST',
      url: '/merchant/sign-in',
      headers: { origin: ORIGIN },
      payload: { code, next: `/merchant/vouchers?code=${v.id}` },
    });
    expect(back.statusCode).toBe(303);
    expect(back.headers.location).toBe(`/merchant/vouchers?code=${v.id}`);
    // A lookup whose session ended comes back to the same lookup.
    const looked = await c.lookup(v.redemption_code);
    expect(looked.statusCode).toBe(401);
    expect(looked.body).toContain('Your session ended.');
    expect(looked.body).toContain(`name="next" value="/merchant/vouchers?code=${encodeURIComponent(v.redemption_code)}"`);
  });

  it('signing in leads only to the counter’s own voucher pages', async () => {
    for (const next of ['https://evil.example/merchant/vouchers', '//evil.example/merchant/vouchers', '/merchant/sign-out', '/ops']) {
      const s = await createStaff(h, subA.key, { name: 'Nat', advertiser_id: advA });
      const res = await h.app.inject({
        method: 'POST',
        url: '/merchant/sign-in',
        headers: { origin: ORIGIN },
        payload: { code: s.code, next },
      });
      expect([res.statusCode, res.headers.location]).toEqual([303, '/merchant']);
    }
  });

  it('a session cookie that is not valid percent-encoding gets the sign-in page, never a 500', async () => {
    for (const [method, url] of [
      ['GET', '/merchant'],
      ['GET', '/merchant/vouchers?code=x'],
      ['POST', '/merchant/sign-out'],
    ] as const) {
      const res = await h.app.inject({ method, url, headers: { cookie: 'merchant_session=%', origin: ORIGIN } });
      expect(res.statusCode).toBeLessThan(500);
      expect(res.body).toContain('Sign-in code');
    }
  });

  it('finds a code typed with spaces for dashes, or none at all', async () => {
    const c = await Counter.signIn(
      h,
      (await api('POST', `${SUB}/redemption_staff/${staff.a.id}/sign_in`, subA.key)).json().redemption_staff.sign_in.code,
    );
    const v = await buy(offers.deal);
    for (const typed of [
      v.redemption_code.replace(/-/g, ' '),
      v.redemption_code.replace(/-/g, '').toLowerCase(),
      ` ${v.redemption_code} `,
    ]) {
      const res = await c.lookup(typed);
      expect([typed, res.statusCode]).toEqual([typed, 200]);
      expect(res.body).toContain(`/merchant/vouchers/${v.id}/redeem`);
    }
  });

  it("sets an advertiser's IANA time zone through the API, validated, and the counter's day follows it", async () => {
    const put = (id: string, time_zone: unknown, key = subA.key) =>
      api('PUT', `${SUB}/advertisers/${id}`, key, { advertiser: { time_zone } });
    expect((await api('GET', `${SUB}/advertisers/${advA}`, subA.key)).json().advertiser.time_zone).toBe('UTC');
    for (const bad of ['Mars/Olympus', '+14:00', 'CEST', 42]) expect([bad, (await put(advA, bad)).statusCode]).toEqual([bad, 422]);
    expect((await put(advA, 'Europe/Paris', subB.key)).statusCode).toBe(404);
    const xml = await h.app.inject({
      method: 'PUT',
      url: `${SUB}/advertisers/${advA}`,
      headers: { 'x-service-api-key': subA.key, 'content-type': 'application/xml', accept: 'application/xml' },
      payload: '<advertiser><time_zone>etc/gmt-14</time_zone></advertiser>',
    });
    expect(xml.statusCode).toBe(200);
    expect(xml.body).toContain('<time_zone>Etc/GMT-14</time_zone>');
    expect((await api('GET', `${SUB}/advertisers`, subA.key)).json().advertisers.find((a: { id: string }) => a.id === advA).time_zone).toBe(
      'Etc/GMT-14',
    );

    // One redemption between the start of the UTC day and of the shop's day (14 hours apart): listed by one rule only.
    const s = await createStaff(h, subA.key, { name: 'Zoe', advertiser_id: advA });
    const c = await Counter.signIn(h, s.code);
    const v = await buy(offers.deal);
    expect((await c.redeem(v.id)).statusCode).toBe(200);
    const now = new Date();
    const local = startOfLocalDay(now, 'Etc/GMT-14').getTime();
    const utc = Date.parse(`${utcDay(now)}T00:00:00Z`);
    const between = new Date(Math.min(local, utc) + Math.abs(local - utc) / 2);
    await h.services.db.updateTable('voucher_redemptions').set({ redeemed_at: between }).where('voucher_id', '=', v.id).execute();
    const home = (await c.get('/merchant')).body;
    expect(home).toContain('Today at this counter (Etc/GMT-14)');
    expect(home.includes(v.redemption_code)).toBe(local < utc);
    await put(advA, 'UTC');
    expect((await c.get('/merchant')).body.includes(v.redemption_code)).toBe(utc < local);
  });

  it('the admin CLI adds, lists, re-issues and revokes staff for a client', async () => {
    const added = adminJson(await admin(['staff', 'add', '--client', subA.clientId, '--advertiser', advA, '--name', 'Cli Staff']));
    expect(added).toMatchObject({ name: 'Cli Staff', advertiser_id: advA, status: 'active', sign_in: { code: expect.any(String) } });
    const c = await Counter.signIn(h, added.sign_in.code);
    expect((await c.get('/merchant')).body).toContain('Cli Staff');
    const listed = adminJson(await admin(['staff', 'list', '--client', subA.clientId, '--advertiser', advA])) as { id: string }[];
    expect(listed.map((s) => s.id)).toContain(added.id);
    expect(JSON.stringify(listed)).not.toContain(added.sign_in.code);
    const again = adminJson(await admin(['staff', 'sign-in', '--client', subA.clientId, added.id]));
    expect(again.sign_in.code).not.toBe(added.sign_in.code);
    // Another client's staff is not found through this client.
    expect((await admin(['staff', 'revoke', '--client', subB.clientId, added.id])).code).not.toBe(0);
    expect(adminJson(await admin(['staff', 'revoke', '--client', subA.clientId, added.id])).status).toBe('revoked');
    expect((await c.lookup('anything')).statusCode).toBe(401);
  });

  it('a counter redemption is in the feed, the callbacks and the statement like any other, with the staff member', async () => {
    const receiver = await new CallbackReceiver().start();
    try {
      await setEndpoint(h.services.db, { clientId: subA.clientId, url: receiver.url, format: 'json', secretKeys: undefined });
      const c = await Counter.signIn(
        h,
        (await api('POST', `${SUB}/redemption_staff/${staff.a.id}/sign_in`, subA.key)).json().redemption_staff.sign_in.code,
      );
      const v = await buy(offers.gift);
      expect((await c.redeem(v.id, '12.50')).statusCode).toBe(200);
      const staffOf = { staff_id: staff.a.id, staff_name: 'Ana' };
      const callback = await eventually('the voucher.redeemed callback', () =>
        receiver.received.find((r) => r.json?.type === 'voucher.redeemed' && r.json.data.voucher_id === v.id),
      );
      expect(callback.json.data.redemption).toMatchObject({ amount: USD(1250), ...staffOf });
      const feed = (await api('GET', `${SUB}/events?limit=500`, subA.key)).json().events as { type: string; data: Record<string, any> }[];
      const event = feed.find((e) => e.type === 'voucher.redeemed' && e.data.voucher_id === v.id);
      expect(event?.data.redemption).toMatchObject({ amount: USD(1250), ...staffOf });
      const period = `?from=${addDays(utcDay(), -1)}&to=${addDays(utcDay(), 1)}`;
      const line = (await api('GET', `${SUB}/statement${period}`, subA.key))
        .json()
        .statement.offers.find((o: { offer_id: string }) => o.offer_id === offers.gift);
      expect(line.vouchers_redeemed).toBeGreaterThanOrEqual(1);
    } finally {
      await receiver.stop();
    }
  });
});
