import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { admin, adminJson } from '../../setup/admin';
import { validOffer } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';
import { sql } from 'kysely';
import { commitVoucherImportBatch, insertVoucherImport } from '../../../store/voucher-imports';

/** A 20,000-row file with five rows to reject, each for its reason; the header is row 1. */
function importFile(): { csv: string; rejected: string[] } {
  const lines = ['redemption_code,barcode'];
  for (let i = 1; i <= 20_000; i++) lines.push(`IMP-${String(i).padStart(6, '0')},`);
  const row = (n: number, text: string) => (lines[n - 1] = text);
  row(101, 'bad code!,');
  row(5002, 'IMP-000010,'); // repeated, in a later batch (2,000 rows a batch here)
  row(303, 'IMP-000303,BC303'); // stays; its barcode is used
  row(304, '"IMP-QUOTED","BCQ"');
  row(305, 'EXIST-1,');
  row(306, 'IMP-X306,bad barcode');
  row(307, 'a,b,c');
  return {
    csv: `${lines.join('\r\n')}\r\n\r\n`,
    rejected: [
      'row,redemption_code,error',
      '101,bad code!,invalid_code',
      '305,EXIST-1,already_supplied',
      '306,IMP-X306,invalid_barcode',
      '307,a,malformed_row',
      '5002,IMP-000010,repeated_in_file',
    ],
  };
}

describe('bulk voucher imports and generation', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true, fixed: { VOUCHER_IMPORT_BATCH_ROWS: 2000 } });
    key = await h.key('submission');
  });
  afterAll(() => h.close());

  const headers = (extra: Record<string, string> = {}) => ({ 'x-service-api-key': key, ...extra });
  const suppliedOffer = async (codes: string[]) => {
    const res = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers`,
      headers: headers(),
      payload: { offer: validOffer({ initial_quantity: undefined, vouchers: codes.map((redemption_code) => ({ redemption_code })) }) },
    });
    expect(res.statusCode).toBe(200);
    return res.json().offer.id as string;
  };
  const get = async (id: string) =>
    (await h.app.inject({ method: 'GET', url: `${SUB}/voucher_imports/${id}`, headers: headers() })).json().voucher_import;
  const finished = (id: string) =>
    eventually(
      `import ${id} to finish`,
      async () => {
        const imp = await get(id);
        return imp.status === 'completed' || imp.status === 'failed' ? imp : undefined;
      },
      { timeoutMs: 120_000 },
    );
  const offerRow = (id: string) =>
    h.services.db
      .selectFrom('offers')
      .select(['quantity_in_stock', 'initial_quantity', 'document'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const codesOf = async (offerId: string) =>
    await h.services.db.selectFrom('supplied_vouchers').select(['redemption_code', 'barcode']).where('offer_id', '=', offerId).execute();

  it('imports a 20,000-row CSV: valid rows once, rejected rows in the errors CSV, stock and initial_quantity grown batch by batch', async () => {
    const offerId = await suppliedOffer(['EXIST-1', 'EXIST-2']);
    const { csv, rejected } = importFile();
    const res = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers/${offerId}/voucher_imports`,
      headers: headers({ 'content-type': 'text/csv' }),
      payload: csv,
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({
      status: 'OK',
      voucher_import: { offer_id: offerId, status: 'queued', rows_total: 20_000, rows_imported: 0, finished_at: null },
    });
    const id = res.json().voucher_import.id;
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'completed', rows_total: 20_000, rows_imported: 19_995, rows_rejected: 5 });
    expect(done.finished_at).not.toBeNull();

    const errors = await h.app.inject({ method: 'GET', url: new URL(done.errors_url).pathname, headers: headers() });
    expect(errors.statusCode).toBe(200);
    expect(errors.headers['content-type']).toMatch(/^text\/csv/);
    expect(errors.body.trim().split('\n')).toEqual(rejected);

    const codes = await codesOf(offerId);
    expect(codes).toHaveLength(2 + 19_995);
    expect(new Set(codes.map((c) => c.redemption_code)).size).toBe(codes.length);
    expect(codes).toEqual(
      expect.arrayContaining([
        { redemption_code: 'IMP-000303', barcode: 'BC303' },
        { redemption_code: 'IMP-QUOTED', barcode: 'BCQ' },
      ]),
    );
    const offer = await offerRow(offerId);
    expect(offer).toMatchObject({ quantity_in_stock: 19_997, initial_quantity: 19_997 });
    expect((offer.document as { initial_quantity: number }).initial_quantity).toBe(19_997);
    // One stock event per batch, each a step up: progress the feed and callbacks see.
    const steps = await h.services.db
      .selectFrom('offer_events')
      .select('data')
      .where('offer_id', '=', offerId)
      .where('type', '=', 'offer.stock_changed')
      .orderBy('sequence')
      .execute();
    const stocks = steps.map((e) => (e.data as { quantity_in_stock: number }).quantity_in_stock);
    expect(stocks).toHaveLength(10);
    expect(stocks[stocks.length - 1]).toBe(19_997);
    expect([...stocks].sort((a, b) => a - b)).toEqual(stocks);
    const event = await h.services.db
      .selectFrom('offer_events')
      .select('data')
      .where('type', '=', 'voucher_import.completed')
      .where('id', 'like', 'evt_%')
      .execute();
    expect(event.map((e) => (e.data as { voucher_import: { id: string } }).voucher_import.id)).toContain(id);

    const list = await h.app.inject({ method: 'GET', url: `${SUB}/offers/${offerId}/voucher_imports`, headers: headers() });
    expect(list.json()).toMatchObject({ total: 1, voucher_imports: [{ id, status: 'completed' }] });
  });

  it('takes a multipart file part voucher_import[file], and answers XML', async () => {
    const offerId = await suppliedOffer(['MP-0']);
    const boundary = 'xyzBOUNDARY';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="voucher_import[file]"; filename="codes.csv"',
      'Content-Type: text/csv',
      '',
      'barcode,redemption_code\n,MP-1\nB2,MP-2\n',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const res = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers/${offerId}/voucher_imports`,
      headers: headers({ 'content-type': `multipart/form-data; boundary=${boundary}`, accept: 'application/xml' }),
      payload: body,
    });
    expect(res.statusCode).toBe(202);
    expect(res.body).toMatch(/<rows_total>2<\/rows_total>/);
    const id = /<id>(vim_[^<]+)<\/id>/.exec(res.body)![1];
    expect(await finished(id)).toMatchObject({ status: 'completed', rows_imported: 2, rows_rejected: 0 });
    expect((await codesOf(offerId)).sort((a, b) => a.redemption_code.localeCompare(b.redemption_code))).toEqual([
      { redemption_code: 'MP-0', barcode: null },
      { redemption_code: 'MP-1', barcode: null },
      { redemption_code: 'MP-2', barcode: 'B2' },
    ]);
  });

  it('generates unique codes from a mask, in JSON and XML', async () => {
    const offerId = await suppliedOffer(['GEN-0000-0000']);
    const res = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers/${offerId}/voucher_imports`,
      headers: headers(),
      payload: { voucher_import: { generate: { count: 5000, pattern: { mask: '####-####', prefix: 'GEN-', charset: '0123456789' } } } },
    });
    expect(res.statusCode).toBe(202);
    expect(await finished(res.json().voucher_import.id)).toMatchObject({
      status: 'completed',
      rows_total: 5000,
      rows_imported: 5000,
      rows_rejected: 0,
    });
    const codes = (await codesOf(offerId)).map((c) => c.redemption_code);
    expect(codes).toHaveLength(5001);
    expect(new Set(codes).size).toBe(5001);
    for (const c of codes) expect(c).toMatch(/^GEN-\d{4}-\d{4}$/);
    expect((await offerRow(offerId)).quantity_in_stock).toBe(5001);

    const xml = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers/${offerId}/voucher_imports`,
      headers: headers({ 'content-type': 'application/xml' }),
      payload:
        '<voucher_import><generate><count>10</count><pattern><length>8</length><prefix>X</prefix></pattern></generate></voucher_import>',
    });
    expect(xml.statusCode).toBe(202);
    expect(await finished(xml.json().voucher_import.id)).toMatchObject({ status: 'completed', rows_imported: 10 });
  });

  it('npm run admin -- vouchers import / generate: a progress bar on stderr, the finished import on stdout', async () => {
    const offerId = await suppliedOffer(['CLI-0']);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vim-')), 'codes.csv');
    fs.writeFileSync(file, `redemption_code\n${Array.from({ length: 3000 }, (_, i) => `CLI-${i + 1}`).join('\n')}\nCLI-0\n`);
    const env = { ...process.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE };
    const imported = await admin(['vouchers', 'import', offerId, file], env);
    expect(adminJson(imported)).toMatchObject({ offer_id: offerId, status: 'completed', rows_imported: 3000, rows_rejected: 1 });
    expect(imported.stderr).toMatch(/codes \S+ \[.*\] 100% \| 3001\/3001 rows \| \d+ rows\/s/);
    const generated = adminJson(await admin(['vouchers', 'generate', offerId, '--count', '500', '--pattern', 'CLI-G-######'], env));
    expect(generated).toMatchObject({ status: 'completed', rows_imported: 500 });
    expect((await codesOf(offerId)).filter((c) => c.redemption_code.startsWith('CLI-G-'))).toHaveLength(500);
  });

  it('refuses what it cannot do with a 4xx', async () => {
    const offerId = await suppliedOffer(['R-1']);
    const post = (payload: string | object, type = 'application/json', offer = offerId) =>
      h.app.inject({ method: 'POST', url: `${SUB}/offers/${offer}/voucher_imports`, headers: headers({ 'content-type': type }), payload });
    const badHeader = await post('code\nA\n', 'text/csv');
    expect(badHeader.statusCode).toBe(422);
    expect(badHeader.json().errors[0].field).toBe('voucher_import[file]');
    expect((await post('redemption_code\n', 'text/csv')).statusCode).toBe(422);
    const small = await post({ voucher_import: { generate: { count: 100, pattern: { charset: 'AB', length: 3 } } } });
    expect(small.statusCode).toBe(422);
    expect(small.json().errors[0].field).toBe('generate.pattern');
    expect((await post({ voucher_import: { generate: { count: 1, colour: 'red' } } })).statusCode).toBe(422);
    expect((await post({ voucher_import: {} })).statusCode).toBe(422);
    expect((await post('redemption_code\nA\n', 'text/csv', 'ofr_nope')).statusCode).toBe(404);
    // An offer whose codes the service generates takes none (docs/vouchers.md).
    const plain = await h.app.inject({
      method: 'POST',
      url: `${SUB}/offers`,
      headers: headers(),
      payload: { offer: validOffer({ initial_quantity: 5 }) },
    });
    const refused = await post('redemption_code\nA\n', 'text/csv', plain.json().offer.id);
    expect(refused.statusCode).toBe(422);
    const otherKey = await h.key('submission');
    const other = await h.app.inject({
      method: 'GET',
      url: `${SUB}/offers/${offerId}/voucher_imports`,
      headers: { 'x-service-api-key': otherKey },
    });
    expect(other.statusCode).toBe(404);
  });

  // Issue 43 items 3, 7, 10 and 12: hostile files refused row by row, never as a whole.
  const postCsv = (offerId: string, csv: string | Buffer, type = 'text/csv') =>
    h.app.inject({
      method: 'POST',
      url: `${SUB}/offers/${offerId}/voucher_imports`,
      headers: headers({ 'content-type': type }),
      payload: csv,
    });
  const errorsCsv = async (imp: { errors_url: string }) =>
    (await h.app.inject({ method: 'GET', url: new URL(imp.errors_url).pathname, headers: headers() })).body.trim().split('\n');

  it('a NUL byte rejects its row as invalid_code and the rest import; a huge line is rejected and kept at a bounded length', async () => {
    const offerId = await suppliedOffer(['NUL-0']);
    const huge = 'H'.repeat(5_000_000);
    const res = await postCsv(offerId, `redemption_code\nN-1\nN\0X\nN-2\n${huge}\nN-3\n`);
    expect(res.statusCode).toBe(202);
    const done = await finished(res.json().voucher_import.id);
    expect(done).toMatchObject({ status: 'completed', rows_total: 5, rows_imported: 3, rows_rejected: 2 });
    expect(await errorsCsv(done)).toEqual(['row,redemption_code,error', '3,N\uFFFDX,invalid_code', `5,${'H'.repeat(100)}…,line_too_long`]);
    expect((await codesOf(offerId)).map((c) => c.redemption_code).sort()).toEqual(['N-1', 'N-2', 'N-3', 'NUL-0']);
  });

  it('a line holding only a byte order mark is no row: rows_total counts what is imported or rejected', async () => {
    const offerId = await suppliedOffer(['BOM-0']);
    const bom = '\uFEFF';
    const res = await postCsv(offerId, `${bom}redemption_code\r\nBOM-1\r\n${bom}\r\n${bom}\nBOM-2\r\n`);
    expect(res.statusCode).toBe(202);
    expect(res.json().voucher_import.rows_total).toBe(2);
    expect(await finished(res.json().voucher_import.id)).toMatchObject({
      status: 'completed',
      rows_total: 2,
      rows_imported: 2,
      rows_rejected: 0,
    });
  });

  it('takes TEXT/CSV with parameters in any case: media types are case-insensitive', async () => {
    const offerId = await suppliedOffer(['CASE-0']);
    const res = await postCsv(offerId, 'redemption_code\nCASE-1\n', 'TEXT/CSV; Charset=UTF-8');
    expect(res.statusCode).toBe(202);
    expect(await finished(res.json().voucher_import.id)).toMatchObject({ status: 'completed', rows_imported: 1 });
  });

  it('a multipart file cut off before its closing boundary is a 400 malformed_body, as for attachments', async () => {
    const offerId = await suppliedOffer(['CUT-0']);
    const boundary = 'cutBOUNDARY';
    // The same body for both, cut before `--cutBOUNDARY--`: a CSV of codes, and a PNG's first bytes for the attachment.
    const cut = (field: string, type: string, content: Buffer) =>
      Buffer.concat([
        Buffer.from(
          [`--${boundary}`, `Content-Disposition: form-data; name="${field}"; filename="f"`, `Content-Type: ${type}`, '', ''].join('\r\n'),
        ),
        content,
      ]);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]);
    for (const [url, payload] of [
      [`${SUB}/offers/${offerId}/voucher_imports`, cut('voucher_import[file]', 'text/csv', Buffer.from('redemption_code\nCUT-1\n'))],
      [`${SUB}/attachments`, cut('attachment[media]', 'image/png', png)],
    ] as const) {
      const res = await h.app.inject({
        method: 'POST',
        url,
        headers: headers({ 'content-type': `multipart/form-data; boundary=${boundary}` }),
        payload,
      });
      expect([url, res.statusCode, res.json().errors[0].code]).toEqual([url, 400, 'malformed_body']);
    }
    expect(await codesOf(offerId)).toHaveLength(1);
  });

  it('an import whose workflow cannot start is failed in the same request (503), never queued for ever', async () => {
    const offerId = await suppliedOffer(['DOWN-0']);
    const start = jest.spyOn(h.services.temporal.workflow, 'start').mockRejectedValueOnce(new Error('temporal is down'));
    try {
      const res = await postCsv(offerId, 'redemption_code\nDOWN-1\n');
      expect(res.statusCode).toBe(503);
      const [error] = res.json().errors;
      expect(error).toMatchObject({ code: 'backend_unavailable', voucher_import_id: expect.stringMatching(/^vim_/) });
      expect(await get(error.voucher_import_id)).toMatchObject({
        status: 'failed',
        rows_imported: 0,
        failure_message: expect.stringMatching(/unavailable/),
      });
    } finally {
      start.mockRestore();
    }
  });

  it('two import batches into one offer at once commit without a deadlock (40P01), in one order of locks', async () => {
    const offerId = await suppliedOffer(['DL-0']);
    const { advertiser_id, client_id } = await h.services.db
      .selectFrom('offers')
      .select(['advertiser_id', 'client_id'])
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow();
    const imports = await Promise.all(
      ['vim_deadlockA0001', 'vim_deadlockB0001'].map((id) =>
        insertVoucherImport(h.services.db, { id, client_id, offer_id: offerId, advertiser_id, kind: 'file', rows_total: 500 }),
      ),
    );
    const codes = (p: string) => Array.from({ length: 500 }, (_, i) => ({ row: i + 2, code: `${p}-${i}`, barcode: null }));
    const waiting = async () =>
      Number(
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(
            h.services.db,
          )
        ).rows[0].n,
      );
    let results: PromiseSettledResult<boolean>[] = [];
    // A third transaction holds the offer's row (not its key): both batches insert their codes
    // (their key share is allowed), then both wait to lock the row; when it lets go, each batch
    // used to wait for the other's key share: a deadlock, one of them refused.
    await h.services.db.transaction().execute(async (trx) => {
      await sql`select 1 from offers where id = ${offerId} for no key update`.execute(trx);
      const batches = imports.map((imp, i) =>
        commitVoucherImportBatch(h.services.db, imp, { batch: 0, endByte: 1, nextRow: 502, codes: codes(`DL${i}`), rejected: [] }),
      );
      await eventually('both batches waiting on a lock', async () => (await waiting()) >= 2);
      void Promise.allSettled(batches).then((r) => (results = r));
    });
    await eventually('both batches settled', async () => results.length === 2);
    expect(results.map((r) => (r.status === 'rejected' ? String((r.reason as Error).message) : r.value))).toEqual([true, true]);
    expect((await offerRow(offerId)).quantity_in_stock).toBe(1001);
  });
});
