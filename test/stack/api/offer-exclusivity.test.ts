import { callbackBuilder } from '../../../schemas/callback-event';
import { DEFAULT_REVENUE_SHARES } from '../../../domain/money';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/** Issue 20 item 4: an exclusive offer exists only for the distribution clients it names. */
describe('exclusive offers', () => {
  let h: Harness;
  let sub: { key: string; clientId: string };
  let insider: { key: string; clientId: string };
  let outsider: { key: string; clientId: string };
  const city = `Exclusiveville-${Date.now()}`;
  const today = new Date().toISOString().slice(0, 10);
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    sub = await h.client('submission');
    insider = await h.client('distribution', { reservations: true });
    outsider = await h.client('distribution', { reservations: true });
  });
  afterAll(() => h.close());

  const call = (key: string, method: 'GET' | 'POST', url: string, payload?: unknown, xml = false) =>
    h.app.inject({
      method,
      url,
      headers: { 'x-service-api-key': key, ...(xml ? { accept: 'application/xml' } : {}) },
      ...(payload ? { payload: payload as object } : {}),
    });
  const located = {
    redemption_locations: [{ address_line_1: '1 Main St', city, state_code: 'NY', postal_code: '10118', country_code: 'US' }],
  };
  const exclusiveOffer = (exclusivity: Record<string, unknown>) =>
    seedOffer(h, sub.clientId, {
      initial_quantity: 10,
      exclusivity,
      advertiser: { ...(validOffer().advertiser as object), ...located },
    });
  const found = async (key: string) =>
    ((await call(key, 'GET', `${DIST}/offers?city=${city}&per_page=100`)).json().offers as { id: string }[]).map((o) => o.id);
  const orderOf = (key: string, offerId: string) =>
    call(key, 'POST', `${DIST}/orders`, {
      order: {
        order_number: `ex-${Math.random().toString(36).slice(2)}`,
        customer_name: 'Ada Lovelace',
        items: [{ offer_id: offerId, quantity: 1 }],
      },
    });
  const account = async (key: string) => {
    const id = (await call(key, 'POST', `${DIST}/accounts`, { account: { name: 'Blog' } })).json().account.id;
    await h.app.inject({
      method: 'PUT',
      url: `${DIST}/accounts/${id}`,
      headers: { 'x-service-api-key': key },
      payload: { account: { status: 'active' } },
    });
    return id as string;
  };
  const reserve = async (key: string, offerId: string) =>
    call(key, 'POST', `${DIST}/offers/${offerId}/reservations`, {
      reservation: { account_id: await account(key), quantity_reserved: 1, start_date: today, end_date: '2099-01-01' },
    });

  it('the named client finds, reads, orders and reserves it; for any other it does not exist', async () => {
    const offerId = await exclusiveOffer({ exclusive: true, channels: [insider.clientId] });
    expect(await found(insider.key)).toContain(offerId);
    expect((await call(insider.key, 'GET', `${DIST}/offers/${offerId}`)).statusCode).toBe(200);
    expect((await call(insider.key, 'GET', `${DIST}/offers/${offerId}.xml`)).body).toContain(`<id>${offerId}</id>`);
    expect((await orderOf(insider.key, offerId)).statusCode).toBe(200);
    expect((await reserve(insider.key, offerId)).statusCode).toBe(200);

    expect(await found(outsider.key)).not.toContain(offerId);
    expect((await call(outsider.key, 'GET', `${DIST}/offers/${offerId}`)).statusCode).toBe(404);
    expect((await call(outsider.key, 'GET', `${DIST}/offers/${offerId}.xml`)).statusCode).toBe(404);
    expect((await reserve(outsider.key, offerId)).statusCode).toBe(404);
    expect((await call(outsider.key, 'GET', `${DIST}/offers/${offerId}/vouchers`)).statusCode).toBe(404);
    expect((await call(insider.key, 'GET', `${DIST}/offers/${offerId}/vouchers`)).json().total).toBe(1);
    // An order answers as it does for an id that does not exist.
    const refused = await orderOf(outsider.key, offerId);
    const unknown = await orderOf(outsider.key, 'ofr_doesnotexist');
    expect(refused.statusCode).toBe(unknown.statusCode);
    expect(refused.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'items[0].offer_id' });
    expect(refused.json().errors[0].message).toBe(unknown.json().errors[0].message.replace('ofr_doesnotexist', offerId));
    expect(
      (await h.services.db.selectFrom('offers').select('quantity_in_stock').where('id', '=', offerId).executeTakeFirstOrThrow())
        .quantity_in_stock,
    ).toBe(8);
  });

  it('is open to everyone from its `until` day, and when not exclusive', async () => {
    const opened = await exclusiveOffer({ exclusive: true, channels: [insider.clientId], until: today });
    const notExclusive = await exclusiveOffer({ exclusive: false, channels: [insider.clientId] });
    const later = await exclusiveOffer({ exclusive: true, channels: [insider.clientId], until: '2099-01-01' });
    const seen = await found(outsider.key);
    expect(seen).toEqual(expect.arrayContaining([opened, notExclusive]));
    expect(seen).not.toContain(later);
    expect((await orderOf(outsider.key, opened)).statusCode).toBe(200);
  });

  it('only the named clients hear of it by callback', async () => {
    const offerId = await exclusiveOffer({ exclusive: true, channels: [insider.clientId] });
    const offer = await h.services.db.selectFrom('offers').selectAll().where('id', '=', offerId).executeTakeFirstOrThrow();
    const event = await h.services.db
      .selectFrom('offer_events')
      .selectAll()
      .where('offer_id', '=', offerId)
      .where('type', '=', 'offer.status_changed')
      .executeTakeFirstOrThrow();
    const callbackFor = callbackBuilder(DEFAULT_REVENUE_SHARES);
    expect(callbackFor(event, offer, { interface: 'distribution', client_id: insider.clientId })?.type).toBe('offer.published');
    expect(callbackFor(event, offer, { interface: 'distribution', client_id: outsider.clientId })).toBeNull();
  });

  it('refuses channels that are not distribution client ids, and an exclusivity naming none (JSON and XML)', async () => {
    const post = (exclusivity: unknown) => call(sub.key, 'POST', `${SUB}/offers`, { offer: validOffer({ exclusivity }) });
    const bad = await post({ exclusive: true, channels: [insider.clientId, 'groupon'] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors).toEqual([expect.objectContaining({ code: 'invalid_field', field: 'exclusivity.channels[1]' })]);
    const submissionClient = await post({ exclusive: true, channels: [sub.clientId] });
    expect(submissionClient.json().errors[0].field).toBe('exclusivity.channels[0]');
    const none = await post({ exclusive: true });
    expect(none.statusCode).toBe(422);
    expect(none.json().errors[0].field).toBe('exclusivity.channels');
    const ok = await post({ exclusive: true, channels: [insider.clientId], until: '2099-01-01' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().offer.exclusivity).toEqual({ exclusive: true, channels: [insider.clientId], until: '2099-01-01' });
    const xml = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers.xml`,
      headers: { 'x-service-api-key': sub.key, 'content-type': 'application/xml' },
      payload: `<?xml version="1.0"?><offer><title>Exclusive XML</title><type>deal</type>
        <price><currency_code>USD</currency_code><amount>4500</amount></price>
        <start_date>2026-01-01</start_date><end_date>2099-12-31</end_date><initial_quantity>5</initial_quantity>
        <exclusivity><exclusive>true</exclusive><channels><channel>not-a-client</channel></channels></exclusivity>
        <advertiser><name>Trattoria Roma</name></advertiser></offer>`,
    });
    expect(xml.statusCode).toBe(422);
    expect(xml.body).toContain('exclusivity.channels[0]');
  });
});
