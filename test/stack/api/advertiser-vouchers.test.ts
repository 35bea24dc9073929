import { seedOffer, validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { type Harness, harnessWithKeys } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/** Codes `${prefix}-0001`…, in upload order. */
const codes = (prefix: string, n: number, barcodes = false) =>
  Array.from({ length: n }, (_, i) => ({
    redemption_code: `${prefix}-${String(i + 1).padStart(5, '0')}`,
    ...(barcodes ? { barcode: `${prefix}BC${String(i + 1).padStart(5, '0')}` } : {}),
  }));

describe("advertisers' own voucher codes, stable advertiser ids and customer voucher pages", () => {
  let h: Harness;
  let dist: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => ({ h, dist, sub } = await harnessWithKeys()));
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, key?: string, payload?: unknown) =>
    h.app.inject({
      method,
      url,
      headers: key ? { 'x-service-api-key': key } : {},
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const post = (offer: Record<string, unknown>, key = sub.key) => call('POST', `${SUB}/offers`, key, { offer: validOffer(offer) });
  const buy = async (offerId: string, quantity: number) => {
    const res = await call('POST', `${DIST}/orders`, dist, {
      order: {
        order_number: `a-${Math.random().toString(36).slice(2)}`,
        customer_name: 'Grace Hopper',
        items: [{ offer_id: offerId, quantity }],
      },
    });
    expect(res.statusCode).toBe(200);
    return res.json().order as { id: string; vouchers: { id: string; redemption_code: string; barcode: string; print_url: string }[] };
  };
  const offerRow = (id: string) =>
    h.services.db
      .selectFrom('offers')
      .select(['quantity_in_stock', 'initial_quantity', 'advertiser_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  describe('supplied codes', () => {
    it('an offer sells exactly its supplied codes: stock is their number, answered with their state', async () => {
      const res = await post({
        initial_quantity: undefined,
        vouchers: codes('SELL', 3, true),
        advertiser: { ...(validOffer().advertiser as object), name: 'Codes Inc' },
      });
      expect(res.statusCode).toBe(200);
      const offer = res.json().offer;
      expect(offer).toMatchObject({ initial_quantity: 3, quantity_in_stock: 3, vouchers_count: { total: 3, available: 3 } });
      expect(offer.vouchers).toEqual(
        codes('SELL', 3, true).map((c) => ({
          ...c,
          id: expect.stringMatching(/^vch_/),
          status: 'available',
          redeemed_at: null,
          cancelled_at: null,
        })),
      );
      // initial_quantity, if sent, must equal the number of codes.
      const mismatch = await post({ initial_quantity: 5, vouchers: codes('MIS', 3) });
      expect(mismatch.statusCode).toBe(422);
      expect(mismatch.json().errors[0].field).toBe('initial_quantity');
    });

    it('refuses a code repeated within the offer, or already supplied by the same advertiser, with 422 naming vouchers', async () => {
      const advertiser = { ...(validOffer().advertiser as object), name: 'Repeat Co' };
      const repeated = await post({
        initial_quantity: undefined,
        advertiser,
        vouchers: [{ redemption_code: 'R1' }, { redemption_code: 'R1' }],
      });
      expect(repeated.statusCode).toBe(422);
      expect(repeated.json().errors[0].field).toBe('vouchers');
      expect((await post({ initial_quantity: undefined, advertiser, vouchers: [{ redemption_code: 'R1' }] })).statusCode).toBe(200);
      const again = await post({
        initial_quantity: undefined,
        advertiser,
        vouchers: [{ redemption_code: 'R2' }, { redemption_code: 'R1' }],
      });
      expect(again.statusCode).toBe(422);
      expect(again.json().errors[0]).toMatchObject({ field: 'vouchers', codes: ['R1'] });
      // Another advertiser may use the same code: codes are unique per advertiser.
      const other = await post({
        initial_quantity: undefined,
        advertiser: { ...advertiser, name: 'Other Co' },
        vouchers: [{ redemption_code: 'R1' }],
      });
      expect(other.statusCode).toBe(200);
    });

    it('a code sent without a barcode shows the same barcode before and after it is sold: the code', async () => {
      const offerId = await seedOffer(h, sub.clientId, {
        initial_quantity: undefined,
        vouchers: [{ redemption_code: 'AUDIT-001' }],
        advertiser: { ...(validOffer().advertiser as object), name: 'Audit Bakery' },
      });
      const listed = async () => {
        const offer = (await call('GET', `${SUB}/offers/${offerId}`, sub.key)).json().offer;
        const paged = (await call('GET', `${SUB}/offers/${offerId}/supplied_vouchers`, sub.key)).json();
        return [offer.vouchers[0].barcode, paged.vouchers[0].barcode];
      };
      expect(await listed()).toEqual(['AUDIT-001', 'AUDIT-001']);
      const [sold] = (await buy(offerId, 1)).vouchers;
      expect(sold).toMatchObject({ redemption_code: 'AUDIT-001', barcode: 'AUDIT-001' });
      expect(await listed()).toEqual(['AUDIT-001', 'AUDIT-001']);
    });

    it('hands codes out first-in first-out; redeems by barcode; a cancelled supplied code does not return to stock', async () => {
      const offerId = await seedOffer(h, sub.clientId, {
        initial_quantity: undefined,
        vouchers: codes('FIFO', 5, true),
        advertiser: { ...(validOffer().advertiser as object), name: 'Fifo Foods' },
      });
      const first = await buy(offerId, 2);
      const second = await buy(offerId, 1);
      // (An order lists its vouchers by id, so compare sorted.)
      expect(first.vouchers.map((v) => [v.redemption_code, v.barcode]).sort()).toEqual([
        ['FIFO-00001', 'FIFOBC00001'],
        ['FIFO-00002', 'FIFOBC00002'],
      ]);
      expect(second.vouchers.map((v) => v.redemption_code)).toEqual(['FIFO-00003']);
      expect((await offerRow(offerId)).quantity_in_stock).toBe(2);

      // A till scans the barcode: the advertiser path accepts it as well as the code.
      const { advertiser_id } = await offerRow(offerId);
      const byBarcode = await call('PUT', `${SUB}/advertisers/${advertiser_id}/vouchers/FIFOBC00001`, sub.key, {
        voucher: { status: 'redeemed' },
      });
      expect(byBarcode.statusCode).toBe(200);
      const oldest = first.vouchers.find((v) => v.redemption_code === 'FIFO-00001')!;
      expect(byBarcode.json().voucher).toMatchObject({ id: oldest.id, status: 'redeemed' });

      // Cancelling the second order: its code may be in the customer's hands, so it is not sold again.
      await h.app.inject({
        method: 'PUT',
        url: `${DIST}/orders/${second.id}`,
        headers: { 'x-service-api-key': dist },
        payload: { order: { status: 'cancelled' } },
      });
      expect((await offerRow(offerId)).quantity_in_stock).toBe(2);
      const next = await buy(offerId, 2);
      expect(next.vouchers.map((v) => v.redemption_code).sort()).toEqual(['FIFO-00004', 'FIFO-00005']);
      const shown = (await call('GET', `${SUB}/offers/${offerId}`, sub.key)).json().offer;
      expect(shown.vouchers.map((v: { status: string }) => v.status)).toEqual([
        'redeemed',
        'acquired',
        'cancelled',
        'acquired',
        'acquired',
      ]);
      expect(shown.vouchers[0].redeemed_at).toEqual(expect.any(String));
      expect(shown.vouchers[2].cancelled_at).toEqual(expect.any(String));
      expect(shown.vouchers_count).toEqual({ total: 5, available: 0 });
      const refused = await call('POST', `${DIST}/orders`, dist, {
        order: { order_number: 'fifo-none-left', customer_name: 'Grace Hopper', items: [{ offer_id: offerId, quantity: 1 }] },
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json().errors[0].code).toBe('insufficient_stock');
    });

    it('appends codes on PUT while withdrawn, growing the stock; refuses them otherwise', async () => {
      const created = (
        await post({
          initial_quantity: undefined,
          vouchers: codes('APP', 2),
          advertiser: { ...(validOffer().advertiser as object), name: 'Append Ltd' },
        })
      ).json().offer;
      const edit = (offer: Record<string, unknown>) => call('PUT', `${SUB}/offers/${created.id}`, sub.key, { offer });
      expect((await edit({ vouchers: [{ redemption_code: 'APP-X' }] })).statusCode).toBe(409); // pending: not editable
      expect((await edit({ status: 'withdrawn' })).statusCode).toBe(200);
      await waitForOfferStatus(h, created.id, 'withdrawn');
      const dup = await edit({ vouchers: [{ redemption_code: 'APP-00001' }] });
      expect(dup.statusCode).toBe(422);
      expect(dup.json().errors[0].field).toBe('vouchers');
      const wrongQuantity = await edit({ vouchers: [{ redemption_code: 'APP-X' }], initial_quantity: 2 });
      expect(wrongQuantity.statusCode).toBe(422);
      expect(wrongQuantity.json().errors[0].field).toBe('initial_quantity');
      const ok = await edit({ vouchers: [{ redemption_code: 'APP-X' }, { redemption_code: 'APP-Y' }], title: 'More codes' });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().offer).toMatchObject({
        title: 'More codes',
        initial_quantity: 4,
        quantity_in_stock: 4,
        vouchers_count: { total: 4, available: 4 },
      });
      expect(ok.json().offer.vouchers.map((v: { redemption_code: string }) => v.redemption_code)).toEqual([
        'APP-00001',
        'APP-00002',
        'APP-X',
        'APP-Y',
      ]);
      expect(await offerRow(created.id)).toMatchObject({ quantity_in_stock: 4, initial_quantity: 4 });
      // An offer whose codes the service generates takes none.
      const generated = (await post({ advertiser: { ...(validOffer().advertiser as object), name: 'Append Ltd' } })).json().offer;
      await call('PUT', `${SUB}/offers/${generated.id}`, sub.key, { offer: { status: 'withdrawn' } });
      await waitForOfferStatus(h, generated.id, 'withdrawn');
      const refused = await call('PUT', `${SUB}/offers/${generated.id}`, sub.key, { offer: { vouchers: [{ redemption_code: 'GEN-1' }] } });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().errors[0].field).toBe('vouchers');
    });

    it('takes 10,000 codes in one upload and sells each exactly once under concurrent orders', async () => {
      const advertiser = { ...(validOffer().advertiser as object), name: 'Bulk Tickets' };
      const upload = codes('BULK', 10_000);
      const res = await post({ initial_quantity: undefined, advertiser, vouchers: upload });
      expect(res.statusCode).toBe(200);
      const created = res.json().offer;
      expect(created).toMatchObject({ quantity_in_stock: 10_000, vouchers_count: { total: 10_000, available: 10_000 } });
      expect(created.vouchers).toHaveLength(100); // capped; the rest are paged
      const page = (await call('GET', `${SUB}/offers/${created.id}/supplied_vouchers?page=100&per_page=100`, sub.key)).json();
      expect(page).toMatchObject({ total: 10_000, page: 100 });
      expect(page.vouchers.at(-1).redemption_code).toBe('BULK-10000');

      // Sold from an approved twin written straight to the store (same codes path, no review needed).
      const offerId = await seedOffer(h, sub.clientId, {
        initial_quantity: undefined,
        advertiser: { ...advertiser, name: 'Bulk Tickets 2' },
        vouchers: upload,
      });
      const orders: Awaited<ReturnType<typeof buy>>[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < 100) {
            next++;
            orders.push(await buy(offerId, 100));
          }
        }),
      );
      const sold = orders.flatMap((o) => o.vouchers.map((v) => v.redemption_code));
      expect(sold).toHaveLength(10_000);
      expect(new Set(sold).size).toBe(10_000);
      expect(new Set(sold)).toEqual(new Set(upload.map((c) => c.redemption_code)));
      // Each order got a run of consecutive codes, oldest first.
      for (const o of orders) {
        const n = o.vouchers.map((v) => Number(v.redemption_code.slice(5))).sort((a, b) => a - b);
        expect(n).toEqual(n.map((_, i) => n[0] + i));
      }
      const issued = await h.services.db
        .selectFrom('vouchers')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('offer_id', '=', offerId)
        .executeTakeFirstOrThrow();
      expect(Number(issued.n)).toBe(10_000);
      expect((await offerRow(offerId)).quantity_in_stock).toBe(0);
    }, 300_000);
  });

  describe('advertisers', () => {
    it('keeps the advertiser id across renames; offers name an existing advertiser by id; GET /advertisers lists them', async () => {
      const key = (await h.client('submission')).key;
      const created = (await post({ advertiser: { ...(validOffer().advertiser as object), name: 'Old Name' } }, key)).json().offer;
      const advId = created.advertiser.id;
      expect(advId).toMatch(/^adv_/);
      // A second offer names it by id (and a name differing in case only is the same advertiser).
      const byId = await post({ advertiser: { ...(validOffer().advertiser as object), id: advId, name: 'Old Name' } }, key);
      expect(byId.json().offer.advertiser.id).toBe(advId);
      const byName = await post({ advertiser: { ...(validOffer().advertiser as object), name: 'old name ' } }, key);
      expect(byName.json().offer.advertiser.id).toBe(advId);
      // Rename through an edit: same id.
      await call('PUT', `${SUB}/offers/${created.id}`, key, { offer: { status: 'withdrawn' } });
      await waitForOfferStatus(h, created.id, 'withdrawn');
      const renamed = await call('PUT', `${SUB}/offers/${created.id}`, key, {
        offer: { advertiser: { ...(validOffer().advertiser as object), name: 'New Name' } },
      });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json().offer.advertiser).toMatchObject({ id: advId, name: 'New Name' });
      const list = (await call('GET', `${SUB}/advertisers`, key)).json();
      expect(list).toMatchObject({ status: 'OK', total: 1, advertisers: [{ id: advId, name: 'New Name' }] });
      // Another client's advertiser id is not yours to name.
      const foreign = await post({ advertiser: { ...(validOffer().advertiser as object), id: advId, name: 'Thief' } });
      expect(foreign.statusCode).toBe(422);
      expect(foreign.json().errors[0].field).toBe('advertiser.id');
      expect((await call('GET', `${SUB}/advertisers`, sub.key)).json().advertisers.map((a: { id: string }) => a.id)).not.toContain(advId);
    });
    it('finds an advertiser named with a letter JavaScript and Postgres fold differently (U+1C89), twice, as the same one', async () => {
      // Node lower-cases U+1C89 (Unicode 16) to U+1C8A; Postgres's lower() leaves it: both sides are folded by Postgres.
      const key = (await h.client('submission')).key;
      const name = 'Caf\u00e9 \u1c89';
      const first = await post({ advertiser: { ...(validOffer().advertiser as object), name } }, key);
      expect(first.statusCode).toBe(200);
      const second = await post({ advertiser: { ...(validOffer().advertiser as object), name: name.toUpperCase() } }, key);
      expect(second.statusCode).toBe(200);
      expect(second.json().offer.advertiser.id).toBe(first.json().offer.advertiser.id);
    });
  });

  describe('customer voucher pages', () => {
    it('print_url is an absolute page a customer opens without a key, revocable, showing the status', async () => {
      const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10, fine_print: 'Not valid on <holidays>.' });
      const order = await buy(offerId, 2);
      const [v1, v2] = order.vouchers;
      expect(v1.print_url).toMatch(/^http:\/\/localhost:80\/customer\/vouchers\/[0-9a-f]{64}$/);
      const open = (url: string) => h.app.inject({ method: 'GET', url: new URL(url).pathname });
      const page = await open(v1.print_url);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.body).toContain('Two-course dinner for two');
      expect(page.body).toContain(v1.redemption_code);
      expect(page.body).toContain('Not valid on &lt;holidays&gt;.'); // escaped
      expect(page.body).toContain('350 5th Ave');
      expect(page.body).toContain('Valid until <strong>2099-12-31</strong>');
      expect(page.body).toMatch(/<svg[^>]*viewBox/); // the Code 128 and QR images
      expect(page.body).toContain('@media print');
      // Rotating revokes the old address.
      const rotated = await call('POST', `${DIST}/vouchers/${v1.id}/print_url`, dist);
      expect(rotated.statusCode).toBe(200);
      const fresh = rotated.json().voucher.print_url;
      expect(fresh).not.toBe(v1.print_url);
      expect((await open(v1.print_url)).statusCode).toBe(404);
      expect((await open(fresh)).statusCode).toBe(200);
      // Another distributor cannot rotate it.
      expect((await call('POST', `${DIST}/vouchers/${v1.id}/print_url`, await h.key('distribution'))).statusCode).toBe(404);
      // Redeemed and cancelled vouchers say so, without a scannable barcode.
      const { advertiser_id } = await offerRow(offerId);
      await call('PUT', `${SUB}/advertisers/${advertiser_id}/vouchers/${v2.redemption_code}`, sub.key, { voucher: { status: 'redeemed' } });
      const redeemed = await open(v2.print_url);
      expect(redeemed.body).toContain('Redeemed on');
      expect(redeemed.body).not.toContain('<svg');
      const other = await buy(offerId, 1);
      await h.app.inject({
        method: 'PUT',
        url: `${DIST}/orders/${other.id}`,
        headers: { 'x-service-api-key': dist },
        payload: { order: { status: 'cancelled' } },
      });
      const cancelled = await open(other.vouchers[0].print_url);
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.body).toContain('Cancelled on');
      expect((await h.app.inject({ method: 'GET', url: '/customer/vouchers/0123456789abcdef' })).statusCode).toBe(404);
    });
  });
});
