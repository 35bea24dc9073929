import { OBSOLETE_USER_ROUTES } from '../../../api/routes/shared/obsolete-users';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { type Harness, harnessWithKeys } from '../../setup/harness';
import { DEV, DIST, SUB } from '../../setup/paths';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe('version-less interface paths and the obsolete User endpoints', () => {
  let h: Harness;
  let dist: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => ({ h, dist, sub } = await harnessWithKeys()));
  afterAll(() => h.close());

  const call = (method: Method, url: string, key?: string, payload?: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({
      method,
      url,
      headers: { ...(key ? { 'x-service-api-key': key } : {}), ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  describe('version-less paths answer as the current version', () => {
    it("the spec's redeem example: PUT /submission/advertisers/:advertiser_id/vouchers/:code", async () => {
      const offerId = await seedOffer(h, sub.clientId, {
        initial_quantity: undefined,
        vouchers: [{ redemption_code: 'SPEC-1' }, { redemption_code: 'SPEC-2' }],
        advertiser: { ...(validOffer().advertiser as object), name: 'Spec Example Co' },
      });
      // Bought without the version segment too.
      const order = await call('POST', '/distribution/orders', dist, {
        order: {
          order_number: `p-${Math.random().toString(36).slice(2)}`,
          customer_name: 'Grace Hopper',
          items: [{ offer_id: offerId, quantity: 1 }],
        },
      });
      expect(order.statusCode).toBe(200);
      const [voucher] = order.json().order.vouchers as Array<{ id: string; redemption_code: string }>;
      const { advertiser_id } = await h.services.db
        .selectFrom('offers')
        .select('advertiser_id')
        .where('id', '=', offerId)
        .executeTakeFirstOrThrow();

      const path = `/submission/advertisers/${advertiser_id}/vouchers/${voucher.redemption_code}`;
      const read = await call('GET', path, sub.key);
      expect(read.statusCode).toBe(200);
      expect(read.json().voucher).toMatchObject({ id: voucher.id, status: 'acquired' }); // sold, not yet redeemed
      const redeemed = await call('PUT', path, sub.key, { voucher: { status: 'redeemed' } });
      expect(redeemed.statusCode).toBe(200);
      expect(redeemed.json().voucher).toMatchObject({ id: voucher.id, status: 'redeemed' });
      // The versioned path sees the same voucher: one route, one state.
      const again = await call('PUT', `${SUB}/advertisers/${advertiser_id}/vouchers/${voucher.redemption_code}`, sub.key, {
        voucher: { status: 'redeemed' },
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().errors[0].code).toBe('conflict');
    });

    it('a distribution search without beta answers what the versioned path answers, in JSON and XML', async () => {
      const offerId = await seedOffer(h, sub.clientId, { title: 'Version-less search offer' });
      // Newest first: the suite's other offers are on sale too, and cheaper ones could fill the page.
      const query = 'per_page=100&sort_by=published_at+desc';
      const short = await call('GET', `/distribution/offers?${query}`, dist);
      const versioned = await call('GET', `${DIST}/offers?${query}`, dist);
      expect(short.statusCode).toBe(200);
      expect(short.json().offers).toEqual(versioned.json().offers);
      expect(short.json().offers.map((o: { id: string }) => o.id)).toContain(offerId);

      const xml = await call('GET', `/distribution/offers.xml?${query}`, dist);
      expect(xml.statusCode).toBe(200);
      expect(xml.headers['content-type']).toMatch(/application\/xml/);
      expect(xml.body).toContain(offerId);
      const accepted = await call('GET', `/distribution/offers/${offerId}`, dist, undefined, { accept: 'application/xml' });
      expect(accepted.statusCode).toBe(200);
      expect(accepted.body).toMatch(/^<\?xml[^>]*>\s*<response>/);
    });

    it('with the same key check and the same errors', async () => {
      const none = await call('GET', '/distribution/offers');
      expect(none.statusCode).toBe(401);
      expect(none.json().errors[0].code).toBe('unauthorized');
      const wrong = await call('GET', '/distribution/offers', sub.key);
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json().errors[0].code).toBe('wrong_interface');
      const invalid = await call('GET', '/distribution/offers?per_page=0', dist);
      expect(invalid.statusCode).toBe(422);
      expect(invalid.json().errors[0].field).toBe('per_page');
      const missing = await call('GET', '/submission/offers/off_doesnotexist', sub.key);
      expect(missing.statusCode).toBe(404);
      expect(missing.json().errors[0].code).toBe('not_found');
    });

    it('the OpenAPI documents list the versioned paths only', async () => {
      for (const iface of ['submission', 'distribution']) {
        const res = await call('GET', `/${iface}/beta/openapi.json`);
        expect(res.statusCode).toBe(200);
        const doc = res.json();
        expect(doc.servers).toEqual([{ url: `/${iface}/beta` }]);
        const paths = Object.keys(doc.paths);
        expect(paths.length).toBeGreaterThan(3);
        // Paths are relative to the versioned server address: none repeats an interface prefix.
        expect(paths.filter((p) => /^\/(submission|distribution)(\/|$)/.test(p))).toEqual([]);
        expect(paths.filter((p) => p.startsWith('/applications'))).toEqual([]);
        // The version-less document address is the same document.
        expect((await call('GET', `/${iface}/openapi.json`)).json()).toEqual(doc);
      }
      // The route table itself holds no version-less route: the alias is a rewrite, not a copy.
      expect(h.app.registeredRoutes.filter((r) => /^\/(submission|distribution)\/(?!beta\/)/.test(r.url))).toEqual([]);
    });
  });

  describe('410 Gone for the obsolete User endpoints', () => {
    const cases = ['submission', 'distribution'].flatMap((iface) =>
      ['/beta', ''].flatMap((version) =>
        OBSOLETE_USER_ROUTES.map(({ method, url }) => ({
          iface: iface as 'submission' | 'distribution',
          method,
          url: `/${iface}${version}${url.replace(':id', 'app_1').replace(':user_id', 'usr_1')}`,
        })),
      ),
    );

    it("covers the spec's three methods on both interfaces, versioned and not", () => {
      expect(OBSOLETE_USER_ROUTES.map((r) => r.method).sort()).toEqual(['DELETE', 'POST', 'PUT']);
      expect(cases).toHaveLength(12);
    });

    it.each(cases)('$method $url answers 410 gone, naming what replaced it', async ({ iface, method, url }) => {
      const res = await call(
        method,
        url,
        iface === 'submission' ? sub.key : dist,
        method === 'DELETE' ? undefined : { user: { email: 'a@example.com' } },
      );
      expect(res.statusCode).toBe(410);
      const body = res.json();
      expect(body).toMatchObject({ status: 'ERROR', request_id: expect.any(String) });
      expect(body.errors).toHaveLength(1);
      const [error] = body.errors;
      expect(error.code).toBe('gone');
      expect(error.message).toContain(`${DEV}/signups`);
      expect(error.message).toContain(`${DIST}/accounts`);
      expect(error.replaced_by.map((r: { path: string }) => r.path)).toEqual([`${DEV}/signups`, `${DIST}/accounts`]);
    });

    it('in XML too, and behind the same key check as every interface route', async () => {
      const xml = await call('DELETE', `${DIST}/applications/app_1/users/usr_1.xml`, dist);
      expect(xml.statusCode).toBe(410);
      expect(xml.body).toContain('<code>gone</code>');
      expect(xml.body).toContain(`${DIST}/accounts`);
      const keyless = await call('POST', '/submission/applications/app_1/users', undefined, { user: {} });
      expect(keyless.statusCode).toBe(401);
      // A method the spec never had there is still the router's 404.
      expect((await call('GET', `${SUB}/applications/app_1/users`, sub.key)).statusCode).toBe(404);
    });
  });
});
