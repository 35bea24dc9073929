import { setReviewSla } from '../../../services/review-sla';
import { DEFAULT_REVIEW_SLA_SECONDS } from '../../../domain/review-estimate';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../api/app';
import { addOperator, removeOperator } from '../../../services/operators';
import { makePdf, makePng, multipart } from '../../setup/files';
import { createHarness, type Harness } from '../../setup/harness';
import { validOffer } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { SUB } from '../../setup/paths';
import { decideWithinDeadline } from '../../../services/review';

const OPS_USERNAME = 'reviewer-ana';
const OPS_PASSWORD = 'correct horse battery staple';
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
const AUTH = basic(OPS_USERNAME, OPS_PASSWORD);
// light-my-request's default Host; the console's own origin as a browser would send it.
const ORIGIN = 'http://localhost:80';

describe('review console (/ops)', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    await h.operator(OPS_USERNAME, OPS_PASSWORD);
    key = await h.key('submission');
  });
  afterAll(() => h.close());

  const sub = (method: 'GET' | 'POST', url: string, payload?: object) =>
    h.app.inject({ method, url: `${SUB}${url}`, headers: { 'x-service-api-key': key }, ...(payload ? { payload } : {}) });
  const create = async (overrides: Record<string, unknown> = {}) => {
    const res = await sub('POST', '/offers', { offer: validOffer(overrides) });
    expect(res.statusCode).toBe(200);
    return res.json().offer.id as string;
  };
  const ops = (url: string, headers: Record<string, string> = { authorization: AUTH }) => h.app.inject({ method: 'GET', url, headers });
  const post = (
    url: string,
    form: Record<string, string> = {},
    headers: Record<string, string> = { authorization: AUTH, origin: ORIGIN },
  ) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });

  /** Every offer id in the queue, in its order, across all pages (other test files leave pending offers too). */
  const queue = async (): Promise<string[]> => {
    const ids: string[] = [];
    for (let n = 1; ; n++) {
      const res = await ops(`/ops?page=${n}`);
      expect(res.statusCode).toBe(200);
      const found = [...res.body.matchAll(/data-offer-id="([^"]+)"/g)].map((m) => m[1]);
      if (found.length === 0) return ids;
      ids.push(...found);
    }
  };

  it('asks for the operator credential (401, Basic challenge) and refuses wrong ones', async () => {
    for (const url of ['/ops', '/ops/', '/ops/offers/ofr_x', '/ops/attachments/att_x', '/ops/nowhere']) {
      const res = await ops(url, {});
      expect([url, res.statusCode]).toEqual([url, 401]);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
    }
    for (const wrong of [
      basic(OPS_USERNAME, 'wrong password!!'),
      basic('someone', OPS_PASSWORD),
      basic(OPS_USERNAME, `${OPS_PASSWORD}x`),
      'Basic !!!',
      `Bearer ${OPS_PASSWORD}`,
    ]) {
      expect((await ops('/ops', { authorization: wrong })).statusCode).toBe(401);
    }
    // A decision without the credential never reaches the workflow, whatever else it carries.
    const id = await create();
    expect((await post(`/ops/offers/${id}/approve`, {}, { origin: ORIGIN })).statusCode).toBe(401);
    expect((await sub('GET', `/offers/${id}`)).json().offer.status).toBe('pending');
  });

  it('locks an address out (429) after 20 wrong credentials, while others still sign in', async () => {
    const from = (ip: string, authorization: string) =>
      h.app.inject({ method: 'GET', url: '/ops', headers: { authorization }, remoteAddress: ip });
    for (let i = 0; i < 20; i++) expect((await from('10.9.9.9', basic(OPS_USERNAME, `guess ${i} guess`))).statusCode).toBe(401);
    const locked = await from('10.9.9.9', AUTH);
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await from('10.9.9.10', AUTH)).statusCode).toBe(200);
  });

  it('lets an operator added to the table in at once, and refuses them as soon as removed, with no restart', async () => {
    const cy = basic('cy-api-test', 'cy console password 1');
    try {
      expect((await ops('/ops', { authorization: cy })).statusCode).toBe(401);
      await addOperator(h.services, 'cy-api-test', 'cy console password 1');
      // The same app, not rebuilt.
      const open = await ops('/ops', { authorization: cy });
      expect([open.statusCode, open.body]).toEqual([200, expect.stringContaining('cy-api-test')]);
      await removeOperator(h.services, 'cy-api-test');
      expect((await ops('/ops', { authorization: cy })).statusCode).toBe(401);
    } finally {
      await h.services.db.deleteFrom('operators').where('name', '=', 'cy-api-test').execute();
    }
  });

  it('lists pending offers oldest first with title, type, advertiser and submitted time', async () => {
    const first = await create({ title: 'Oldest pending offer' });
    const second = await create({
      title: 'Newer pending offer',
      type: 'coupon',
      price: undefined,
      value: undefined,
      initial_quantity: undefined,
    });
    const res = await ops('/ops');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.body).toMatch(/page 1 of \d+, overdue first/);
    const ids = await queue();
    expect(ids.indexOf(first)).toBeGreaterThan(-1);
    expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second));
    expect(new Set(ids).size).toBe(ids.length);
    const pageOf = (id: string) => Math.floor(ids.indexOf(id) / 25) + 1;
    const listed = (await ops(`/ops?page=${pageOf(second)}`)).body;
    const row = new RegExp(`<tr data-offer-id="${second}">.*?</tr>`).exec(listed)?.[0] ?? '';
    expect(row).toContain('Newer pending offer');
    expect(row).toContain('coupon');
    expect(row).toContain('Trattoria Roma');
    expect(row).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
  });

  it('lists overdue reviews first with their due and expected times, and charts review times per category', async () => {
    const onTime = await create({ title: 'Reviewed on time' });
    const late = await create({ title: 'Review past its SLA' });
    // One decision, so that the chart and the estimates have a history to draw from.
    const decided = await create({ title: 'Decided for the chart' });
    await decideWithinDeadline(h.services, decided, 'approve', { reviewer: OPS_USERNAME });
    // The late one's SLA ran out an hour ago (as if the SLA had been shorter when it was submitted).
    await h.services.db
      .updateTable('offers')
      .set({ review_due_at: new Date(Date.now() - 3600_000) })
      .where('id', '=', late)
      .execute();
    const ids = await queue();
    expect(ids.indexOf(late)).toBeGreaterThan(-1);
    expect(ids.indexOf(late)).toBeLessThan(ids.indexOf(onTime));
    const pageOf = (id: string) => Math.floor(ids.indexOf(id) / 25) + 1;
    const body = (await ops(`/ops?page=${pageOf(late)}`)).body;
    const lateRow = new RegExp(`<tr data-offer-id="${late}"[^>]*>.*?</tr>`).exec(body)?.[0] ?? '';
    expect(lateRow).toContain('data-overdue="true"');
    expect(lateRow).toMatch(/overdue by/);
    const onTimeRow =
      new RegExp(`<tr data-offer-id="${onTime}"[^>]*>.*?</tr>`).exec((await ops(`/ops?page=${pageOf(onTime)}`)).body)?.[0] ?? '';
    expect(onTimeRow).not.toContain('data-overdue');
    // Each row has its expected decision time (a time, or a dash where the history has no estimate yet).
    expect(onTimeRow).toMatch(/data-testid="expected">(\d{4}-\d{2}-\d{2} [^<]+|—)</);
    // The chart: an accessible inline SVG (title and description) and the same figures as a table.
    const chart = /<section data-testid="review-times">.*?<\/section>/s.exec(body)?.[0] ?? '';
    expect(chart).toMatch(/<svg role="img" aria-labelledby="rt-title rt-desc"/);
    expect(chart).toContain('<title id="rt-title">');
    expect(chart).toMatch(/<desc id="rt-desc">[^<]*median/);
    expect(chart).toMatch(/<tbody>\s*<tr><td>[^<]+<\/td><td>\d+<\/td>/);
  });

  it('escapes everything an advertiser wrote', async () => {
    const evil = '<script>alert("x")</script>';
    const attr = '"><img src=x onerror=alert(1)>';
    const id = await create({
      title: `${evil} Free pizza`,
      fine_print: `fine ${attr}`,
      creative: { headlines: [evil], description: `desc ${attr}`, original_media: [] },
      advertiser: { ...(validOffer().advertiser as object), name: `Evil & Co ${attr}`, public_phone: '<b>555</b>' },
      custom_attributes: [{ name: `<i>n</i>`, value: `' onmouseover='alert(1)` }],
    });
    const ids = await queue();
    for (const url of [`/ops?page=${Math.floor(ids.indexOf(id) / 25) + 1}`, `/ops/offers/${id}`]) {
      const res = await ops(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('<script>');
      expect(res.body).not.toContain('<img src=x');
      expect(res.body).not.toContain('<b>555');
      expect(res.body).not.toContain('<i>n</i>');
      expect(res.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Free pizza');
      expect(res.body).toContain('Evil &amp; Co &quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    }
    const page = (await ops(`/ops/offers/${id}`)).body;
    expect(page).toContain('&#39; onmouseover=&#39;alert(1)');
  });

  it('shows the offer: creative, attachments through the ops route, advertiser, price, dates, fine print, restrictions', async () => {
    const upload = async (filename: string, content: Buffer) => {
      const body = multipart([{ filename, content }]);
      const res = await h.app.inject({
        method: 'POST',
        url: `${SUB}/attachments`,
        payload: body.payload,
        headers: { ...body.headers, 'x-service-api-key': key },
      });
      expect(res.statusCode).toBe(200);
      return res.json().attachment.id as string;
    };
    const png = makePng();
    const image = await upload('hero.png', png);
    const pdf = await upload('menu <1>.pdf', makePdf());
    const id = await create({
      creative: { headlines: ['Dinner for two'], description: 'A fine dinner.', original_media: [{ id: image }, { id: pdf }] },
      restrictions: { limit_per_customer: 2, valid_days: ['monday', 'tuesday'], notes: 'Not on holidays' },
    });
    const res = await ops(`/ops/offers/${id}`);
    expect(res.statusCode).toBe(200);
    for (const text of [
      'Dinner for two',
      'A fine dinner.',
      'Trattoria Roma',
      '350 5th Ave, New York, NY, 10118, US',
      'https://trattoria.example',
      '+1 212 555 0100',
      '$45.00',
      '$90.00',
      '50%',
      '2026-01-01 to 2099-12-31',
      'Valid Monday to Thursday. Reservation required.',
      'monday, tuesday',
      'Not on holidays',
      'cuisine',
      'italian',
      'menu &lt;1&gt;.pdf',
    ]) {
      expect([text, res.body.includes(text)]).toEqual([text, true]);
    }
    expect(res.body).toContain(`<img class="media" src="/ops/attachments/${image}"`);
    expect(res.body).toContain(`<a href="/ops/attachments/${pdf}" download>`);
    expect(res.body).toContain('action="/ops/offers/' + id + '/approve"');

    const img = await ops(`/ops/attachments/${image}`);
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/png');
    expect(img.headers['content-disposition']).toMatch(/^inline;/);
    expect(img.rawPayload.equals(png)).toBe(true);
    const doc = await ops(`/ops/attachments/${pdf}`);
    expect(doc.headers['content-disposition']).toMatch(/^attachment;/);
    expect((await ops(`/ops/attachments/${image}`, {})).statusCode).toBe(401);
    expect((await ops('/ops/attachments/att_missing')).statusCode).toBe(404);
    expect((await ops('/ops/offers/ofr_missing')).statusCode).toBe(404);
  });

  it('refuses decisions that do not come from its own pages (CSRF)', async () => {
    const id = await create();
    const cases: Array<Record<string, string>> = [
      { authorization: AUTH },
      { authorization: AUTH, origin: 'https://evil.example' },
      { authorization: AUTH, origin: 'null' },
      { authorization: AUTH, referer: 'https://evil.example/ops' },
      { authorization: AUTH, origin: ORIGIN, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of cases) {
      const res = await post(`/ops/offers/${id}/approve`, {}, headers);
      expect([headers, res.statusCode]).toEqual([headers, 403]);
      const rej = await post(`/ops/offers/${id}/reject`, { reason: 'forged' }, headers);
      expect(rej.statusCode).toBe(403);
    }
    expect((await sub('GET', `/offers/${id}`)).json().offer.status).toBe('pending');
  });

  it('rejects with a required reason, by the reject signal, and shows the new status', async () => {
    const id = await create();
    const empty = await post(`/ops/offers/${id}/reject`, { reason: '   ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('needs a reason');
    const res = await post(`/ops/offers/${id}/reject`, { reason: 'Images are <blurry>' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/ops/offers/${id}?sent=reject`);
    const offer = (await sub('GET', `/offers/${id}`)).json().offer;
    expect(offer).toMatchObject({ status: 'rejected', rejection_reason: 'Images are <blurry>' });
    const row = await h.services.db.selectFrom('offers').select('reviewed_by').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.reviewed_by).toBe(OPS_USERNAME);
    const page = await ops(res.headers.location as string);
    expect(page.body).toContain('Decision recorded');
    expect(page.body).toContain('Images are &lt;blurry&gt;');
    expect(page.body).not.toContain('/reject"'); // no decision forms once decided
    // Deciding again is refused with the lifecycle's message, as the CLI refuses it.
    const again = await post(`/ops/offers/${id}/approve`);
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('only a pending offer can be reviewed');
  });

  it('approves by the approve signal, with a Referer instead of an Origin too', async () => {
    const id = await create();
    const res = await post(`/ops/offers/${id}/approve`, {}, { authorization: AUTH, referer: `${ORIGIN}/ops/offers/${id}` });
    expect(res.statusCode).toBe(303);
    expect((await sub('GET', `/offers/${id}`)).json().offer.status).toBe('approved');
    expect(await queue()).not.toContain(id);
  });

  describe('with operators signing in as themselves', () => {
    let app: FastifyInstance;
    const ALICE = basic('alice', 'alice secret pass 1');
    const BOB = basic('bob', 'bob secret pass 22');
    beforeAll(async () => {
      await h.operator('alice', 'alice secret pass 1');
      await h.operator('bob', 'bob secret pass 22');
      app = await buildApp(h.services);
      // Reviews are due after 2 s (the review SLA, decision 0078).
      await setReviewSla(h.services, 2);
    });
    afterAll(async () => {
      await setReviewSla(h.services, DEFAULT_REVIEW_SLA_SECONDS);
      await app.close();
    });

    const get = (url: string, authorization: string) => app.inject({ method: 'GET', url, headers: { authorization } });
    const decide = (url: string, authorization: string, form: Record<string, string> = {}) =>
      app.inject({
        method: 'POST',
        url,
        headers: { authorization, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
      });
    const offerVia = async (method: 'POST' | 'PUT', url: string, offer: object) => {
      const res = await app.inject({ method, url: `${SUB}${url}`, headers: { 'x-service-api-key': key }, payload: { offer } });
      expect([url, res.statusCode]).toEqual([url, 200]);
      return res.json().offer as { id: string; status: string };
    };
    /** The review history entries of the offer page, as their text (whitespace folded). */
    const timelineOf = async (id: string, authorization: string) => {
      const body = (await get(`/ops/offers/${id}`, authorization)).body;
      const section = /<section data-testid="timeline">([\s\S]*?)<\/section>/.exec(body)?.[1] ?? '';
      return [...section.matchAll(/<li data-kind="([a-z]+)">([\s\S]*?)<\/li>/g)].map(
        (m) =>
          `${m[1]}: ${m[2]
            .replace(/<[^>]+>/g, ' ')
            .replace(/\s+/g, ' ')
            .trim()}`,
      );
    };

    it('signs each operator in with their own password and records them as the reviewer', async () => {
      expect((await get('/ops', ALICE)).body).toContain('signed in as alice');
      expect((await get('/ops', BOB)).body).toContain('signed in as bob');
      for (const wrong of [basic('alice', 'bob secret pass 22'), basic('carol', 'alice secret pass 1')]) {
        expect((await get('/ops', wrong)).statusCode).toBe(401);
      }
      const id = (await offerVia('POST', '/offers', validOffer({ title: 'Approved by alice' }))).id;
      expect((await decide(`/ops/offers/${id}/approve`, ALICE)).statusCode).toBe(303);
      const row = await h.services.db.selectFrom('offers').select('reviewed_by').where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.reviewed_by).toBe('alice');
      const page = (await get(`/ops/offers/${id}`, BOB)).body;
      expect(page).toMatch(/Reviewed<\/dt>\s*<dd>[^<]* by alice<\/dd>/);
    });

    it("shows the offer's review history from its workflow: submitted, reminder, withdrawn, edited, resubmitted, decided by whom", async () => {
      const id = (await offerVia('POST', '/offers', validOffer({ title: 'A reviewed life' }))).id;
      // The reminder comes 2 s after submission (the review SLA set above).
      await eventually('the reminder in the timeline', async () => (await timelineOf(id, ALICE)).some((e) => e.startsWith('reminder')), {
        intervalMs: 500,
      });
      await offerVia('PUT', `/offers/${id}`, { status: 'withdrawn' });
      await offerVia('PUT', `/offers/${id}`, { title: 'A reviewed life, edited' });
      await offerVia('PUT', `/offers/${id}`, { status: 'pending' });
      expect((await decide(`/ops/offers/${id}/reject`, BOB, { reason: 'Prices are <unclear>' })).statusCode).toBe(303);

      const timeline = await timelineOf(id, ALICE);
      // A second reminder may come 2 s after the resubmission, before the rejection: left out here.
      const steps = timeline
        .filter((e, i) => i < 2 || !e.startsWith('reminder'))
        .map((e) => e.replace(/^(\w+): \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC /, '$1: '));
      expect(steps).toEqual([
        'started: Submitted for review',
        // At least the SLA's 2 s: a loaded machine runs the reminder's step a second or so later.
        expect.stringMatching(/^reminder: Reminder: the review has waited ([2-9]|\d{2,}) s$/),
        'status: Status withdrawn (by the advertiser)',
        'edited: Edited by the advertiser: title',
        'status: Status pending (by the advertiser)',
        'status: Rejected by bob : “Prices are &lt;unclear&gt;”',
      ]);
      const page = (await get(`/ops/offers/${id}`, ALICE)).body;
      // The workflow's page in Temporal's Web UI (the test stack's dev server), by workflow and run id.
      const link = /href="([^"]+)" rel="noopener noreferrer" data-testid="temporal-link"/.exec(page)?.[1];
      expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/namespaces/default/workflows/offer-review%3A${id}/[\\w-]+/history$`));
    });

    it('filters the queue by type, category and waiting time, and shows how long each offer has waited', async () => {
      const coupon = (
        await offerVia(
          'POST',
          '/offers',
          validOffer({ title: 'Filter coupon', type: 'coupon', price: undefined, value: undefined, initial_quantity: undefined }),
        )
      ).id;
      const elsewhere = (
        await offerVia(
          'POST',
          '/offers',
          validOffer({ title: 'Filter other category', advertiser: { ...(validOffer().advertiser as object), categories: [{ id: 3 }] } }),
        )
      ).id;
      const old = (await offerVia('POST', '/offers', validOffer({ title: 'Filter old deal' }))).id;
      // Submitted two days ago, as if it had waited that long.
      await h.services.db
        .updateTable('offers')
        .set({ submitted_at: new Date(Date.now() - 2 * 86_400_000 - 3_600_000) })
        .where('id', '=', old)
        .execute();

      /** Offer ids over every page of the queue with this filter. */
      const listed = async (query: string) => {
        const ids: string[] = [];
        for (let n = 1; ; n++) {
          const res = await get(`/ops?${query}&page=${n}`, ALICE);
          expect(res.statusCode).toBe(200);
          const found = [...res.body.matchAll(/data-offer-id="([^"]+)"/g)].map((m) => m[1]);
          if (found.length === 0) return ids;
          ids.push(...found);
        }
      };
      const coupons = await listed('type=coupon&category=&waiting=');
      expect(coupons).toContain(coupon);
      expect(coupons).not.toContain(old);
      const cat3 = await listed('category=3');
      expect(cat3).toContain(elsewhere);
      expect(cat3).not.toContain(old);
      const waitingADay = await listed('waiting=1d');
      expect(waitingADay).toContain(old);
      expect(waitingADay).not.toContain(coupon);
      expect(waitingADay).not.toContain(elsewhere);

      const body = (await get('/ops?waiting=1d&type=deal', ALICE)).body;
      const row = new RegExp(`<tr data-offer-id="${old}">.*?</tr>`).exec(body)?.[0] ?? '';
      expect(row).toContain('<td class="waited" data-testid="waited">2 d 1 h</td>');
      expect(body).toContain('<option value="deal" selected>deal</option>');
      expect(body).toContain('<option value="1d" selected>1 day</option>');
      expect((await get('/ops?type=bogus', ALICE)).statusCode).toBe(400);
      expect((await get('/ops?waiting=5y', ALICE)).statusCode).toBe(400);
    });
  });
});
