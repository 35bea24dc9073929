import { OBSOLETE_USER_ROUTES } from '../../../api/routes/shared/obsolete-users';
import { runMonthlyStatements } from '../../../services/monthly-statements';
import { approveSignal } from '../../../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../../../workflows/shared/ids';
import { multipart, makePng } from '../../setup/files';
import { validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/**
 * Every route that takes an id, table-driven from the app's own route registry: a second client
 * using the first client's ids gets 404 and changes nothing. A route missing from the table fails
 * the test, so a new route cannot skip the check.
 */
describe('isolation between clients', () => {
  let h: Harness;
  const keys = { owner: { submission: '', distribution: '' }, stranger: { submission: '', distribution: '' } };
  const ids: Record<string, string> = {};

  const call = (key: string, method: string, url: string, payload?: unknown) =>
    h.app.inject({
      method: method as 'GET',
      url,
      headers: { 'x-service-api-key': key },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  beforeAll(async () => {
    h = await createHarness({ worker: true });
    keys.owner.submission = await h.key('submission');
    keys.stranger.submission = await h.key('submission');
    keys.owner.distribution = await h.key('distribution', { reservations: true });
    keys.stranger.distribution = await h.key('distribution', { reservations: true });
    const S = SUB;
    const D = DIST;
    const own = keys.owner;

    const png = multipart([{ filename: 'a.png', content: makePng(), contentType: 'image/png' }]);
    ids.attachment = (
      await h.app.inject({
        method: 'POST',
        url: `${S}/attachments`,
        headers: { 'x-service-api-key': own.submission, ...png.headers },
        payload: png.payload,
      })
    ).json().attachment.id;
    const offer = (await call(own.submission, 'POST', `${S}/offers`, { offer: validOffer({ initial_quantity: 50 }) })).json().offer;
    ids.offer = offer.id;
    ids.advertiser = offer.advertiser.id;
    await h.services.temporal.workflow.getHandle(offerReviewWorkflowId(ids.offer)).signal(approveSignal, {});
    await waitForOfferStatus(h, ids.offer, 'approved');
    ids.comment = (
      await call(own.submission, 'POST', `${S}/offers/${ids.offer}/comments`, { comment: { author_name: 'Ana', content: 'Hello' } })
    ).json().comment.id;
    ids.account = (
      await call(own.distribution, 'POST', `${D}/accounts`, { account: { name: 'Blog', website_url: 'https://blog.example' } })
    ).json().account.id;
    await call(own.distribution, 'PUT', `${D}/accounts/${ids.account}`, { account: { status: 'active' } });
    const order = (
      await call(own.distribution, 'POST', `${D}/orders`, {
        order: { order_number: 'iso-1', customer_name: 'Ada', items: [{ offer_id: ids.offer, quantity: 2 }] },
      })
    ).json().order;
    ids.order = order.id;
    ids.voucher = order.vouchers[0].id;
    // A redemption of the other voucher, for the rollback routes.
    ids.redeemed = order.vouchers[1].id;
    ids.redemption = (
      await call(own.submission, 'PUT', `${SUB}/offers/${ids.offer}/vouchers/${ids.redeemed}`, {
        voucher: { status: 'redeemed' },
      })
    ).json().voucher.redemptions[0].id;
    ids.staff = (
      await call(own.submission, 'POST', `${SUB}/redemption_staff`, { redemption_staff: { name: 'Ana', advertiser_id: ids.advertiser } })
    ).json().redemption_staff.id;
    const today = new Date().toISOString().slice(0, 10);
    ids.reservation = (
      await call(own.distribution, 'POST', `${D}/offers/${ids.offer}/reservations`, {
        reservation: { account_id: ids.account, quantity_reserved: 3, start_date: today, end_date: '2099-01-01' },
      })
    ).json().reservation.id;
    // Monthly statements of both owners: the order's sales moved to a month no other test file uses,
    // so the run stores statements for this file's clients alone.
    await h.services.db
      .updateTable('vouchers')
      .set({ acquired_at: new Date('2001-02-10T12:00:00Z') })
      .where('order_id', '=', ids.order)
      .execute();
    await runMonthlyStatements(h.services, '2001-02');
    const statementOf = async (key: string, iface: string) =>
      (await call(key, 'GET', `/${iface}/beta/statements`)).json().statements.find((x: { month: string }) => x.month === '2001-02')?.id;
    ids.submissionStatement = await statementOf(own.submission, 'submission');
    ids.distributionStatement = await statementOf(own.distribution, 'distribution');
    const supplied = (
      await call(own.submission, 'POST', `${S}/offers`, {
        offer: validOffer({ initial_quantity: undefined, vouchers: [{ redemption_code: 'ISO-1' }] }),
      })
    ).json().offer.id;
    ids.voucherImport = (
      await call(own.submission, 'POST', `${S}/offers/${supplied}/voucher_imports`, { voucher_import: { generate: { count: 3 } } })
    ).json().voucher_import.id;
    // Bulk work (docs/bulk-offers-and-exports.md): an export on each interface, an offer import.
    const exportOf = async (key: string, iface: string) =>
      (await call(key, 'POST', `/${iface}/beta/offers/${ids.offer}/voucher_exports`)).json().voucher_export.id;
    ids.submissionExport = await exportOf(own.submission, 'submission');
    ids.distributionExport = await exportOf(own.distribution, 'distribution');
    ids.offerImport = (
      await h.app.inject({
        method: 'POST',
        url: `${S}/offer_imports`,
        headers: { 'x-service-api-key': own.submission, 'content-type': 'application/x-ndjson' },
        payload: '{"offer": {}}\n',
      })
    ).json().offer_import.id;
    expect(Object.values(ids).every(Boolean)).toBe(true);
  });
  afterAll(() => h.close());

  /** How to fill each route's path, and a body a careless implementation would act on. */
  const TABLE: Record<string, { params: Record<string, string>; body?: unknown }> = {
    'GET /submission/beta/offers/:id': { params: { id: 'offer' } },
    'GET /submission/beta/offers/:id/review': { params: { id: 'offer' } },
    'GET /submission/beta/advertisers/:advertiser_id': { params: { advertiser_id: 'advertiser' } },
    'PUT /submission/beta/advertisers/:advertiser_id': {
      params: { advertiser_id: 'advertiser' },
      body: { advertiser: { time_zone: 'Europe/Berlin' } },
    },
    'PUT /submission/beta/offers/:id': { params: { id: 'offer' }, body: { offer: { status: 'suspended' } } },
    'DELETE /submission/beta/offers/:id': { params: { id: 'offer' } },
    'GET /submission/beta/attachments/:id': { params: { id: 'attachment' } },
    'GET /submission/beta/attachments/:id/download': { params: { id: 'attachment' } },
    'DELETE /submission/beta/attachments/:id': { params: { id: 'attachment' } },
    'GET /submission/beta/offers/:id/comments': { params: { id: 'offer' } },
    'POST /submission/beta/offers/:id/comments': {
      params: { id: 'offer' },
      body: { comment: { author_name: 'Mallory', content: 'mine now' } },
    },
    'GET /submission/beta/offers/:id/comments/:comment_id': { params: { id: 'offer', comment_id: 'comment' } },
    'PUT /submission/beta/offers/:id/comments/:comment_id': {
      params: { id: 'offer', comment_id: 'comment' },
      body: { comment: { content: 'changed' } },
    },
    'DELETE /submission/beta/offers/:id/comments/:comment_id': { params: { id: 'offer', comment_id: 'comment' } },
    'GET /submission/beta/offers/:id/vouchers': { params: { id: 'offer' } },
    'GET /submission/beta/offers/:id/supplied_vouchers': { params: { id: 'offer' } },
    'GET /submission/beta/offers/:id/vouchers/:voucher_id': { params: { id: 'offer', voucher_id: 'voucher' } },
    'PUT /submission/beta/offers/:id/vouchers/:voucher_id': {
      params: { id: 'offer', voucher_id: 'voucher' },
      body: { voucher: { status: 'redeemed' } },
    },
    'GET /submission/beta/advertisers/:advertiser_id/vouchers/:ref': { params: { advertiser_id: 'advertiser', ref: 'voucher' } },
    'POST /submission/beta/offers/:id/vouchers/:voucher_id/redemptions/:redemption_id/rollback': {
      params: { id: 'offer', voucher_id: 'redeemed', redemption_id: 'redemption' },
    },
    'POST /submission/beta/advertisers/:advertiser_id/vouchers/:ref/redemptions/:redemption_id/rollback': {
      params: { advertiser_id: 'advertiser', ref: 'redeemed', redemption_id: 'redemption' },
    },
    'PUT /submission/beta/advertisers/:advertiser_id/vouchers/:ref': {
      params: { advertiser_id: 'advertiser', ref: 'voucher' },
      body: { voucher: { status: 'redeemed' } },
    },
    'POST /submission/beta/offers/:id/voucher_imports': { params: { id: 'offer' }, body: { voucher_import: { generate: { count: 5 } } } },
    'GET /submission/beta/offers/:id/voucher_imports': { params: { id: 'offer' } },
    'GET /submission/beta/voucher_imports/:id': { params: { id: 'voucherImport' } },
    'GET /submission/beta/voucher_imports/:id/errors.csv': { params: { id: 'voucherImport' } },
    'POST /submission/beta/redemption_staff/:id/sign_in': { params: { id: 'staff' } },
    'DELETE /submission/beta/redemption_staff/:id': { params: { id: 'staff' } },
    'GET /submission/beta/statements/:id': { params: { id: 'submissionStatement' } },
    'GET /submission/beta/statements/:id.csv': { params: { id: 'submissionStatement' } },
    'GET /distribution/beta/statements/:id': { params: { id: 'distributionStatement' } },
    'GET /distribution/beta/statements/:id.csv': { params: { id: 'distributionStatement' } },
    'GET /distribution/beta/accounts/:id': { params: { id: 'account' } },
    'PUT /distribution/beta/accounts/:id': { params: { id: 'account' }, body: { account: { name: 'Hijacked' } } },
    'DELETE /distribution/beta/accounts/:id': { params: { id: 'account' } },
    'GET /distribution/beta/orders/:id': { params: { id: 'order' } },
    'PUT /distribution/beta/orders/:id': { params: { id: 'order' }, body: { order: { status: 'cancelled' } } },
    'GET /distribution/beta/offers/:id/reservations/:reservation_id': { params: { id: 'offer', reservation_id: 'reservation' } },
    'PUT /distribution/beta/offers/:id/reservations/:reservation_id': {
      params: { id: 'offer', reservation_id: 'reservation' },
      body: { reservation: { quantity_reserved: 1 } },
    },
    'DELETE /distribution/beta/offers/:id/reservations/:reservation_id': { params: { id: 'offer', reservation_id: 'reservation' } },
    'GET /distribution/beta/offers/:id/vouchers/:voucher_id': { params: { id: 'offer', voucher_id: 'voucher' } },
    'PUT /distribution/beta/offers/:id/vouchers/:voucher_id': {
      params: { id: 'offer', voucher_id: 'voucher' },
      body: { voucher: { status: 'cancelled' } },
    },
    'GET /distribution/beta/advertisers/:advertiser_id/vouchers/:ref': { params: { advertiser_id: 'advertiser', ref: 'voucher' } },
    'PUT /distribution/beta/advertisers/:advertiser_id/vouchers/:ref': {
      params: { advertiser_id: 'advertiser', ref: 'voucher' },
      body: { voucher: { status: 'redeemed' } },
    },
    'GET /distribution/beta/vouchers/:id/print': { params: { id: 'voucher' } },
    'POST /submission/beta/offers/:id/voucher_exports': { params: { id: 'offer' } },
    'GET /submission/beta/voucher_exports/:id': { params: { id: 'submissionExport' } },
    'GET /distribution/beta/voucher_exports/:id': { params: { id: 'distributionExport' } },
    'GET /submission/beta/offer_imports/:id': { params: { id: 'offerImport' } },
    'GET /submission/beta/offer_imports/:id/errors': { params: { id: 'offerImport' } },
    'POST /distribution/beta/vouchers/:id/print_url': { params: { id: 'voucher' } },
  };
  /** Routes whose id names a public resource: the catalogue of approved offers is every distributor's to see and sell. */
  const PUBLIC = new Set([
    'GET /distribution/beta/offers/:id',
    'GET /distribution/beta/offers/:id/media/:media_id', // the pictures of a public offer
    'GET /distribution/beta/offers/:id/reservations', // lists only the caller's own reservations of a public offer
    'POST /distribution/beta/offers/:id/reservations', // a reservation of a public offer, for the caller's own account
    'GET /distribution/beta/offers/:id/vouchers', // lists only the vouchers the caller sold
    'POST /distribution/beta/offers/:id/voucher_exports', // exports only the vouchers the caller sold
  ]);

  const snapshot = async () => {
    const { submission: s, distribution: d } = keys.owner;
    const get = async (key: string, url: string) => (await call(key, 'GET', url)).body;
    return Promise.all([
      get(s, `${SUB}/offers/${ids.offer}`),
      get(s, `${SUB}/offers/${ids.offer}/comments`),
      get(s, `${SUB}/attachments/${ids.attachment}`),
      get(s, `${SUB}/offers/${ids.offer}/vouchers`),
      get(s, `${SUB}/redemption_staff`),
      get(d, `${DIST}/accounts/${ids.account}`),
      get(d, `${DIST}/orders/${ids.order}`),
      get(d, `${DIST}/offers/${ids.offer}/reservations/${ids.reservation}`),
    ]);
  };

  it('covers every route with an id, and a second client gets 404 on each, changing nothing', async () => {
    const before = await snapshot();
    // The obsolete User endpoints hold no resource: they answer 410 to everyone (test/stack/api/paths-and-gone.test.ts).
    const gone = new Set(OBSOLETE_USER_ROUTES.map((r) => r.url));
    const routes = h.app.registeredRoutes.filter(
      (r) => /^\/(submission|distribution)\/beta\/.*:/.test(r.url) && r.method !== 'HEAD' && !gone.has(r.url.replace(/^\/\w+\/beta/, '')),
    );
    const untested = routes.map((r) => `${r.method} ${r.url}`).filter((k) => !TABLE[k] && !PUBLIC.has(k));
    expect(untested).toEqual([]);
    for (const [route, { params, body }] of Object.entries(TABLE)) {
      const [method, pattern] = route.split(' ');
      const url = pattern.replace(/:(\w+)/g, (_m, name: string) => ids[params[name]]);
      const iface = pattern.split('/')[1] as 'submission' | 'distribution';
      const res = await call(keys.stranger[iface], method, url, body);
      expect([route, res.statusCode]).toEqual([route, 404]);
      expect(res.json().errors[0].code).toBe('not_found');
    }
    expect(await snapshot()).toEqual(before);
  });
});
