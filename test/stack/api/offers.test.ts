import { offerReviewWorkflowId } from '../../../workflows/shared/ids';
import { approveSignal, rejectSignal } from '../../../workflows/offer-review-messages';
import { createHarness, type Harness } from '../../setup/harness';
import { validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { recordHistory } from '../../setup/workflow-env';
import { SubmissionOfferResponse } from '../../../schemas/offer';
import { coerceXmlToSchema, parseXml } from '../../../schemas/xml';
import { SUB } from '../../setup/paths';
import { DEFAULT_REVIEW_SLA_SECONDS } from '../../../domain/review-estimate';
import { setReviewSla } from '../../../services/review-sla';

describe('submission offers under the review workflow', () => {
  let h: Harness;
  let key: string;
  let otherKey: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    // Reviews are due 2 s after submission (the review SLA, decision 0078).
    await setReviewSla(h.services, 2);
    key = await h.key('submission');
    otherKey = await h.key('submission');
  });
  afterAll(async () => {
    await setReviewSla(h.services, DEFAULT_REVIEW_SLA_SECONDS);
    await h.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, k = key) =>
    h.app.inject({
      method,
      url: `${SUB}${url}`,
      headers: { 'x-service-api-key': k },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  const create = async (overrides: Record<string, unknown> = {}) => {
    const res = await call('POST', '/offers', { offer: validOffer(overrides) });
    expect(res.statusCode).toBe(200);
    return res.json().offer;
  };
  const status = async (id: string) => (await call('GET', `/offers/${id}`)).json().offer.status;
  const signal = (id: string, which: 'approve' | 'reject', reason?: string) => {
    const handle = h.services.temporal.workflow.getHandle(offerReviewWorkflowId(id));
    return which === 'approve'
      ? handle.signal(approveSignal, { reviewer: 'Ana' })
      : handle.signal(rejectSignal, { reason: reason!, reviewer: 'Ana' });
  };
  const move = (id: string, to: string) => call('PUT', `/offers/${id}`, { offer: { status: to } });

  it('creates an offer pending review, with its workflow running', async () => {
    const offer = await create();
    expect(offer).toMatchObject({
      status: 'pending',
      title: 'Two-course dinner for two',
      quantity_in_stock: 100,
      reserved_quantity: 0,
      closed_at: null,
    });
    expect(offer.id).toMatch(/^ofr_/);
    expect(offer.advertiser.id).toMatch(/^adv_/);
    expect(offer.custom_attributes).toEqual([{ name: 'cuisine', value: 'italian' }]);
    const described = await h.services.temporal.workflow.getHandle(offerReviewWorkflowId(offer.id)).describe();
    expect(described.status.name).toBe('RUNNING');
  });

  it('approves by the `approve` signal', async () => {
    const { id } = await create();
    await signal(id, 'approve');
    await waitForOfferStatus(h, id, 'approved');
    const offer = (await call('GET', `/offers/${id}`)).json().offer;
    expect(offer.published_at).not.toBeNull();
    expect(offer.reviewed_at).not.toBeNull();
  });

  it('rejects by the `reject` signal, with the reason visible to the advertiser', async () => {
    const { id } = await create();
    await signal(id, 'reject', 'Images are blurry');
    await waitForOfferStatus(h, id, 'rejected');
    expect((await call('GET', `/offers/${id}`)).json().offer.rejection_reason).toBe('Images are blurry');
    const comments = await h.services.db.selectFrom('comments').selectAll().where('offer_id', '=', id).execute();
    expect(comments).toMatchObject([{ author_role: 'review_team', content: 'Rejected: Images are blurry' }]);
  });

  it('walks every client move and refuses the ones the lifecycle forbids with 409', async () => {
    const { id } = await create();
    for (const refused of ['suspended', 'resumed', 'pending']) {
      const res = await move(id, refused);
      expect(res.statusCode).toBe(409);
      expect(res.json().errors[0].code).toBe('invalid_state_transition');
    }
    await signal(id, 'approve');
    await waitForOfferStatus(h, id, 'approved');
    for (const [to, code] of [
      ['suspended', 200],
      ['suspended', 409],
      ['resumed', 200],
      ['pending', 409],
      ['withdrawn', 200],
      ['resumed', 409],
      ['pending', 200],
    ] as const) {
      const res = await move(id, to);
      expect([to, res.statusCode]).toEqual([to, code]);
      if (code === 200) expect(res.json().offer.status).toBe(to);
    }
    // The replay test's history of a workflow run by the real activities (approved, moved, resubmitted).
    await recordHistory(h.services.temporal.workflow.getHandle(offerReviewWorkflowId(id)), 'offer-review-approved-withdrawn-resubmitted');
    expect((await move(id, 'cancelled')).json().offer.status).toBe('cancelled');
    for (const to of ['pending', 'withdrawn', 'suspended']) expect((await move(id, to)).statusCode).toBe(409);
  });

  it('refuses edits until the offer is withdrawn, then accepts and validates them whole', async () => {
    const { id } = await create();
    const edit = (fields: Record<string, unknown>) => call('PUT', `/offers/${id}`, { offer: fields });
    const refused = await edit({ title: 'New title' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().errors[0].message).toMatch(/withdraw/);
    expect((await move(id, 'withdrawn')).statusCode).toBe(200);
    const bad = await edit({ end_date: '2020-01-01' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('end_date');
    const ok = await edit({ title: 'New title', initial_quantity: 40 });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().offer).toMatchObject({ title: 'New title', status: 'withdrawn', quantity_in_stock: 40 });
    expect((await move(id, 'pending')).json().offer.status).toBe('pending');
    const mixed = await call('PUT', `/offers/${id}`, { offer: { status: 'withdrawn', title: 'x' } });
    expect(mixed.statusCode).toBe(422);
  });

  it('tells the advertiser which redemption locations radius searches cannot place, also after an edit', async () => {
    const locations = [
      { city: 'New York', state_code: 'NY', postal_code: '10118', country_code: 'US' },
      { address_line_1: 'Hauptstrasse 1', city: 'Berlin', postal_code: '10115', country_code: 'DE' },
      { city: 'Berlin', postal_code: '10115', country_code: 'DE', latitude: 52.532, longitude: 13.3849 },
      { country_code: 'US' },
      { address_line_1: 'Somewhere 1' },
    ];
    const offer = await create({ advertiser: { name: 'Placed Co', categories: [], redemption_locations: locations } });
    // The German postal code is unknown to our data, an address alone is no place; the others are placed
    // (coordinates given, a US ZIP code, a nationwide location naming only its country).
    expect(offer.unplaced_locations).toEqual([1, 4]);
    expect(offer.advertiser.redemption_locations[2]).toMatchObject({ latitude: 52.532, longitude: 13.3849 });
    expect((await call('GET', `/offers/${offer.id}`)).json().offer.unplaced_locations).toEqual([1, 4]);
    expect((await move(offer.id, 'withdrawn')).statusCode).toBe(200);
    const edited = await call('PUT', `/offers/${offer.id}`, {
      offer: { advertiser: { name: 'Placed Co', categories: [], redemption_locations: [locations[0], locations[2]] } },
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json().offer.unplaced_locations).toEqual([]);
  });

  it('refuses coordinates out of range or without their pair (422 naming the field)', async () => {
    const refused = async (location: Record<string, unknown>, field: string) => {
      const res = await call('POST', '/offers', {
        offer: validOffer({ advertiser: { name: 'Placed Co', categories: [], redemption_locations: [location] } }),
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.map((e: { field?: string }) => e.field)).toContain(field);
    };
    await refused({ latitude: 91, longitude: 0 }, 'advertiser.redemption_locations[0].latitude');
    await refused({ latitude: 0, longitude: -180.5 }, 'advertiser.redemption_locations[0].longitude');
    await refused({ latitude: 45 }, 'advertiser.redemption_locations[0].longitude');
    await refused({ longitude: 45 }, 'advertiser.redemption_locations[0].latitude');
    await refused({ latitude: '45', longitude: 9 }, 'advertiser.redemption_locations[0].latitude');
  });

  it('DELETE cancels the offer; it stays readable as cancelled', async () => {
    const { id } = await create();
    expect((await call('DELETE', `/offers/${id}`)).json()).toEqual({ status: 'OK' });
    expect(await status(id)).toBe('cancelled');
  });

  it.each([
    ['a missing title', { title: undefined }, 'title'],
    ['an unknown type', { type: 'voucher_book' }, 'type'],
    ['end_date before start_date', { start_date: '2026-05-01', end_date: '2026-04-01' }, 'end_date'],
    ['a negative amount', { price: { currency_code: 'USD', amount: -5 } }, 'price.amount'],
    ['a fractional amount', { price: { currency_code: 'USD', amount: 10.5 } }, 'price.amount'],
    ['an unknown currency', { price: { currency_code: 'XYZ', amount: 5 } }, 'price.currency_code'],
    ['a bad date', { start_date: '2026-02-30' }, 'start_date'],
    [
      'an unknown category id',
      { advertiser: { ...(validOffer().advertiser as object), categories: [{ id: 999999 }] } },
      'advertiser.categories[0].id',
    ],
    [
      "an attachment that is not the client's",
      { creative: { headlines: [], original_media: [{ id: 'att_nope' }] } },
      'creative.original_media[0].id',
    ],
    ['a deal without stock', { initial_quantity: undefined }, 'initial_quantity'],
  ])('answers %s with 422 naming the field', async (_name, overrides, field) => {
    const res = await call('POST', '/offers', { offer: validOffer(overrides) });
    expect(res.statusCode).toBe(422);
    expect(res.json().status).toBe('ERROR');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it("hides one client's offers from another (404)", async () => {
    const { id } = await create();
    for (const [method, body] of [['GET'], ['PUT', { offer: { status: 'withdrawn' } }], ['DELETE']] as const) {
      const res = await call(method, `/offers/${id}`, body, otherKey);
      expect(res.statusCode).toBe(404);
    }
    expect((await call('GET', '/offers', undefined, otherKey)).json().offers.find((o: { id: string }) => o.id === id)).toBeUndefined();
    expect(await status(id)).toBe('pending');
  });

  it("lists the client's offers, filtered by status and type, paged", async () => {
    const k = await h.key('submission');
    const make = (o: Record<string, unknown>) => call('POST', '/offers', { offer: validOffer(o) }, k);
    await make({});
    await make({});
    await make({ type: 'coupon', price: undefined, initial_quantity: undefined });
    const all = (await call('GET', '/offers?per_page=2', undefined, k)).json();
    expect(all).toMatchObject({ status: 'OK', page: 1, per_page: 2, total: 3 });
    expect(all.offers).toHaveLength(2);
    expect((await call('GET', '/offers?type=coupon', undefined, k)).json().total).toBe(1);
    expect((await call('GET', '/offers?status=approved', undefined, k)).json().total).toBe(0);
    expect((await call('GET', '/offers?status=bogus', undefined, k)).statusCode).toBe(422);
  });

  it('round-trips a full offer through XML, equal to its JSON twin', async () => {
    const json = validOffer({
      custom_attributes: [
        { name: 'cuisine', value: 'italian' },
        { name: 'seats', value: '40' },
      ],
    });
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<offer>
  <title>Two-course dinner for two</title><type>deal</type>
  <price><currency_code>USD</currency_code><amount>4500</amount></price>
  <value><currency_code>USD</currency_code><amount>9000</amount></value>
  <discount><type>percentage</type><percentage>50</percentage></discount>
  <fine_print>Valid Monday to Thursday. Reservation required.</fine_print>
  <start_date>2026-01-01</start_date><end_date>2099-12-31</end_date>
  <vouchers_expire><on>2099-12-31</on></vouchers_expire>
  <initial_quantity>100</initial_quantity>
  <creative><requires_editorial_support>false</requires_editorial_support>
    <headlines><headline>Dinner for two</headline><headline>Half price</headline></headlines>
    <description>A fine dinner.</description><original_media/></creative>
  <advertiser><name>Trattoria Roma</name><description>Family Italian restaurant</description>
    <categories><category><id>2</id></category></categories>
    <redemption_locations><redemption_location><address_line_1>350 5th Ave</address_line_1><city>New York</city>
      <state_code>NY</state_code><postal_code>10118</postal_code><country_code>US</country_code></redemption_location></redemption_locations>
    <website_url>https://trattoria.example</website_url><public_phone>+1 212 555 0100</public_phone></advertiser>
  <custom_attributes>
    <custom_attribute><name>cuisine</name><value>italian</value></custom_attribute>
    <custom_attribute><name>seats</name><value>40</value></custom_attribute>
  </custom_attributes>
</offer>`;
    const viaXml = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers.xml`,
      headers: { 'x-service-api-key': key, 'content-type': 'application/xml' },
      payload: xml,
    });
    expect(viaXml.statusCode).toBe(200);
    expect(viaXml.headers['content-type']).toMatch(/xml/);
    expect(viaXml.body).toContain(
      '<custom_attributes><custom_attribute><name>cuisine</name><value>italian</value></custom_attribute><custom_attribute><name>seats</name><value>40</value></custom_attribute></custom_attributes>',
    );
    expect(viaXml.body).toContain('<headlines><headline>Dinner for two</headline><headline>Half price</headline></headlines>');
    const id = /<id>(ofr_[^<]+)<\/id>/.exec(viaXml.body)![1];
    const fromXml = (await call('GET', `/offers/${id}`)).json().offer;
    const fromJson = await create(json);
    const strip = (o: Record<string, unknown>) => {
      const { id: _i, created_at: _c, updated_at: _u, submitted_at: _s, ...rest } = o;
      return rest;
    };
    expect(strip(fromXml)).toEqual(strip(fromJson));
    const asXml = await call('GET', `/offers/${id}.xml`);
    expect(asXml.body).toMatch(/^<\?xml[^>]*><response><status>OK<\/status><offer>/);
    // The answer's XML is its JSON twin field for field: what JSON leaves out (no restrictions, no
    // bundle items) has no element, an empty list is an empty wrapper, null an empty element.
    const asJson = (await call('GET', `/offers/${id}`)).json();
    expect(asJson.offer).not.toHaveProperty('restrictions');
    expect(asJson.offer).not.toHaveProperty('items');
    expect(asJson.offer.creative.original_media).toEqual([]);
    expect(asJson.offer.closed_at).toBeNull();
    expect(asXml.body).not.toMatch(/<restrictions|<items|<demographics|<exclusivity/);
    expect(asXml.body).toContain('<original_media/>');
    expect(asXml.body).toContain('<closed_at/>');
    // Read back by the answer's own schema, the XML is the JSON answer; a null text field (the
    // rejection reason) reads as its empty element's text, as docs/resources.md says.
    const fromXmlAnswer = coerceXmlToSchema(SubmissionOfferResponse, parseXml(asXml.body).response) as typeof asJson;
    expect(fromXmlAnswer.offer.rejection_reason).toBe('');
    expect({ ...fromXmlAnswer, offer: { ...fromXmlAnswer.offer, rejection_reason: null } }).toEqual(asJson);
  });

  it('raises a reminder when a review waits past its SLA', async () => {
    const { id } = await create();
    const events = await eventually('the offer.review_overdue event', async () => {
      const types = (
        await h.services.db.selectFrom('offer_events').select('type').where('offer_id', '=', id).orderBy('sequence').execute()
      ).map((e) => e.type);
      return types.includes('offer.review_overdue') && types;
    });
    expect(events).toEqual(['offer.created', 'offer.review_overdue']);
  });

  it('closes an offer when its end_date has passed', async () => {
    const { id } = await create({ start_date: '2020-01-01', end_date: '2020-12-31', vouchers_expire: { on: '2021-06-30' } });
    await waitForOfferStatus(h, id, 'closed');
    expect((await call('GET', `/offers/${id}`)).json().offer.closed_at).not.toBeNull();
    expect((await move(id, 'withdrawn')).statusCode).toBe(409);
  });

  it('survives a worker restart mid-review: nothing is lost', async () => {
    const { id } = await create();
    await h.worker!.shutdown();
    await signal(id, 'approve'); // recorded by Temporal while no worker runs
    expect(await status(id)).toBe('pending');
    await h.startWorker();
    await waitForOfferStatus(h, id, 'approved');
    const events = await h.services.db
      .selectFrom('offer_events')
      .select(['type', 'sequence'])
      .where('offer_id', '=', id)
      .orderBy('sequence')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['offer.created', 'offer.status_changed']);
  });
});
