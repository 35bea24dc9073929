import { createHarness, type Harness } from '../../setup/harness';
import { validOffer } from '../../setup/fixtures';
import { SUB } from '../../setup/paths';

/** Issue 20 item 7: the spec's `quantity_in_stock` on create is the stock when initial_quantity is absent. */
describe('quantity_in_stock on create', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    key = await h.key('submission');
  });
  afterAll(() => h.close());

  const post = (offer: Record<string, unknown>) =>
    h.app.inject({ method: 'POST', url: `${SUB}/offers`, headers: { 'x-service-api-key': key }, payload: { offer } });
  const postXml = (xml: string) =>
    h.app.inject({
      method: 'POST',
      url: `${SUB}/offers.xml`,
      headers: { 'x-service-api-key': key, 'content-type': 'application/xml' },
      payload: xml,
    });

  it('gives a deal its stock when initial_quantity is absent', async () => {
    const res = await post(validOffer({ initial_quantity: undefined, quantity_in_stock: 25 }));
    expect(res.statusCode).toBe(200);
    expect(res.json().offer).toMatchObject({ initial_quantity: 25, quantity_in_stock: 25 });
  });

  it('gives a coupon a stock instead of going live unlimited', async () => {
    const res = await post(
      validOffer({ type: 'coupon', price: undefined, value: undefined, initial_quantity: undefined, quantity_in_stock: 3 }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().offer).toMatchObject({ initial_quantity: 3, quantity_in_stock: 3 });
  });

  it('accepts both when they agree', async () => {
    const res = await post(validOffer({ initial_quantity: 7, quantity_in_stock: 7 }));
    expect(res.statusCode).toBe(200);
    expect(res.json().offer.quantity_in_stock).toBe(7);
  });

  it('refuses both when they differ, naming both, and creates nothing', async () => {
    const title = `differing-${Date.now()}`;
    const res = await post(validOffer({ title, initial_quantity: 7, quantity_in_stock: 9 }));
    expect(res.statusCode).toBe(422);
    const [err] = res.json().errors;
    expect(err).toMatchObject({ code: 'invalid_field', field: 'quantity_in_stock' });
    expect(err.message).toMatch(/initial_quantity \(7\).*quantity_in_stock \(9\)/);
    expect(await h.services.db.selectFrom('offers').select('id').where('title', '=', title).execute()).toEqual([]);
  });

  it('reads quantity_in_stock from an XML body too', async () => {
    const xml = `<?xml version="1.0"?><offer><title>XML stock</title><type>deal</type>
      <price><currency_code>USD</currency_code><amount>4500</amount></price>
      <start_date>2026-01-01</start_date><end_date>2099-12-31</end_date>
      <quantity_in_stock>12</quantity_in_stock>
      <advertiser><name>Trattoria Roma</name></advertiser></offer>`;
    const res = await postXml(xml);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<quantity_in_stock>12</quantity_in_stock>');
    expect(res.body).toContain('<initial_quantity>12</initial_quantity>');
    const bad = await postXml(xml.replace('<quantity_in_stock>', '<initial_quantity>5</initial_quantity><quantity_in_stock>'));
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('quantity_in_stock');
  });
});
