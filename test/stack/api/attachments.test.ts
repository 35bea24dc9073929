import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EMBEDDED_S3_SERVERS } from '../../../platform/config';
import { freePort } from '../../../platform/free-port';
import type { RunningObjectStore } from '../../../infra/local/minio';
import { ensureBucket } from '../../../platform/object-store';
import { startEmbeddedObjectStore } from '../../../infra/local/stack';
import { unownedAttachmentIds } from '../../../store/attachments';
import { makePdf, makePng, makeZip, multipart, type FilePart } from '../../setup/files';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';

async function objectKeys(h: Harness, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of h.services.store.client.listObjectsV2(h.services.store.bucket, prefix, true))
    keys.push((o as { name: string }).name);
  return keys;
}

async function incompleteUploads(h: Harness, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const u of h.services.store.client.listIncompleteUploads(h.services.store.bucket, prefix, true)) keys.push(u.key);
  return keys;
}

// Every case against each server `npm start` can embed (EMBEDDED_S3), each started here in a
// DATA_DIR of its own, so that either default keeps uploads, downloads and deletes working.
describe.each(EMBEDDED_S3_SERVERS)('attachments on %s: uploads to the object store, typed by their bytes', (server) => {
  let h: Harness;
  let key: string;
  let clientId: string;
  let s3: RunningObjectStore;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `offer-marketplace-${server}-`));
    s3 = await startEmbeddedObjectStore(server, { dataDir, port: await freePort() });
    h = await createHarness({
      env: {
        S3_ENDPOINT: s3.endpoint,
        S3_ACCESS_KEY: s3.accessKey,
        S3_SECRET_KEY: s3.secretKey,
        // A small limit (just over one 5 MiB part) so the multipart path and its abort are exercised cheaply.
        ATTACHMENT_MAX_BYTES: String(6 * 1024 * 1024),
      },
    });
    await ensureBucket(h.services.store, h.config.S3_REGION);
    ({ key, clientId } = await h.client('submission'));
  });
  afterAll(async () => {
    await h?.close();
    await s3?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const upload = (part: FilePart | FilePart[], apiKey = key, headers: Record<string, string> = {}) => {
    const body = multipart(Array.isArray(part) ? part : [part]);
    return h.app.inject({
      method: 'POST',
      url: `${SUB}/attachments`,
      payload: body.payload,
      headers: { ...body.headers, 'x-service-api-key': apiKey, ...headers },
    });
  };
  const get = (url: string, apiKey = key) => h.app.inject({ method: 'GET', url, headers: { 'x-service-api-key': apiKey } });
  const del = (id: string, apiKey = key) =>
    h.app.inject({ method: 'DELETE', url: `${SUB}/attachments/${id}`, headers: { 'x-service-api-key': apiKey } });
  const pathOf = (downloadUrl: string) => new URL(downloadUrl).pathname;
  const rowOf = (id: string) => h.services.db.selectFrom('attachments').selectAll().where('id', '=', id).executeTakeFirst();

  it('stores a real PNG and serves the same bytes back from download_url', async () => {
    const png = makePng(40, 30);
    const res = await upload({ filename: 'shop front.png', content: png, contentType: 'image/png' });
    expect(res.statusCode).toBe(200);
    const { status, attachment } = res.json();
    expect(status).toBe('OK');
    expect(attachment).toMatchObject({ file_name: 'shop front.png', file_size: Math.ceil(png.length / 1024), content_type: 'image/png' });
    expect(attachment.id).toMatch(/^att_/);
    expect(attachment.download_url).toBe(`http://localhost:80${SUB}/attachments/${attachment.id}/download`);

    const download = await get(pathOf(attachment.download_url));
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.headers['content-disposition']).toContain('filename="shop front.png"');
    expect(download.rawPayload.equals(png)).toBe(true);

    expect((await get(`${SUB}/attachments/${attachment.id}`)).json().attachment).toEqual(attachment);
    expect((await get(pathOf(attachment.download_url), 'om_nope')).statusCode).toBe(401);
  });

  it('answers the upload in XML when asked', async () => {
    const res = await upload({ filename: 'a.png', content: makePng() }, key, { accept: 'application/xml' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(
      /<response><status>OK<\/status><attachment><id>att_[^<]+<\/id><file_name>a\.png<\/file_name><file_size>1<\/file_size><download_url>http/,
    );
  });

  it('refuses a text file renamed to .png with 415, storing nothing', async () => {
    const before = await objectKeys(h, `${clientId}/`);
    const res = await upload({
      filename: 'notes.png',
      content: Buffer.from('these are my notes, not an image\n'),
      contentType: 'image/png',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ status: 'ERROR', errors: [{ code: 'unsupported_media_type', field: 'attachment[media]' }] });
    expect(await objectKeys(h, `${clientId}/`)).toEqual(before);
  });

  it.each([
    ['a PDF', 'brochure.pdf', makePdf(), 'application/pdf'],
    ['a ZIP', 'menu.zip', makeZip(), 'application/zip'],
    ['a JPEG', 'photo.jpg', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100)]), 'image/jpeg'],
  ])('accepts %s, typed by its bytes whatever it is called', async (_n, filename, content, type) => {
    const res = await upload({ filename: filename.replace(/\.\w+$/, '.bin'), content, contentType: 'text/plain' });
    expect(res.statusCode).toBe(200);
    const { attachment } = res.json();
    expect(attachment.content_type).toBe(type);
    const download = await get(pathOf(attachment.download_url));
    expect(download.headers['content-type']).toBe(type);
    expect(download.rawPayload.equals(content)).toBe(true);
    // Saved under the sniffed type's extension, never as the .bin (or .html) it was called.
    expect(download.headers['content-disposition']).toContain(`filename="${filename}"`);
  });

  it('names a download after the sniffed type: a PDF uploaded as x.html downloads as x.pdf', async () => {
    const { attachment } = (await upload({ filename: 'x.html', content: makePdf(), contentType: 'text/html' })).json();
    const download = await get(pathOf(attachment.download_url));
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(download.headers['content-disposition']).toBe(`attachment; filename="x.pdf"; filename*=UTF-8''x.pdf`);
    const jpeg = (
      await upload({ filename: 'shot.JPEG', content: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64)]) })
    ).json();
    expect((await get(pathOf(jpeg.attachment.download_url))).headers['content-disposition']).toContain('filename="shot.JPEG"');
  });

  it('streams a file of several parts through a multipart upload, byte-identical', async () => {
    const big = Buffer.concat([makePng(), Buffer.alloc(5.5 * 1024 * 1024, 7)]);
    const res = await upload({ filename: 'big.png', content: big });
    expect(res.statusCode).toBe(200);
    expect(res.json().attachment.file_size).toBe(Math.ceil(big.length / 1024));
    const download = await get(pathOf(res.json().attachment.download_url));
    expect(download.rawPayload.length).toBe(big.length);
    expect(download.rawPayload.equals(big)).toBe(true);
  });

  it('refuses a file over ATTACHMENT_MAX_BYTES with 413, leaving no object, upload or row', async () => {
    const { key: k2, clientId: c2 } = await h.client('submission');
    const tooBig = Buffer.concat([makePng(), Buffer.alloc(h.config.ATTACHMENT_MAX_BYTES, 1)]);
    const res = await upload({ filename: 'huge.png', content: tooBig }, k2);
    expect(res.statusCode).toBe(413);
    expect(res.json().errors[0]).toMatchObject({ code: 'payload_too_large', field: 'attachment[media]' });
    expect(await objectKeys(h, `${c2}/`)).toEqual([]);
    expect(await incompleteUploads(h, `${c2}/`)).toEqual([]);
    expect(await h.services.db.selectFrom('attachments').select('id').where('client_id', '=', c2).execute()).toEqual([]);

    // One PNG: makePng() varies in length from call to call, so it is made once and padded to the limit.
    const png = makePng();
    const exact = Buffer.concat([png, Buffer.alloc(h.config.ATTACHMENT_MAX_BYTES - png.length, 1)]);
    expect(exact.length).toBe(h.config.ATTACHMENT_MAX_BYTES);
    expect((await upload({ filename: 'exact.png', content: exact }, k2)).statusCode).toBe(200);
  });

  it('keeps path traversal and control characters out of names and keys', async () => {
    const res = await upload({ filename: '../../../etc/pass\u0007wd\u202e.png', content: makePng() });
    expect(res.statusCode).toBe(200);
    const { attachment } = res.json();
    expect(attachment.file_name).toBe('passwd.png');
    const row = await rowOf(attachment.id);
    expect(row!.object_key).toBe(`${clientId}/${attachment.id}/passwd.png`);
    expect(await objectKeys(h, 'etc/')).toEqual([]);

    const dots = (await upload({ filename: '..', content: makePng() })).json().attachment;
    expect(dots.file_name).toBe('attachment.png');
    expect((await rowOf(dots.id))!.object_key).toBe(`${clientId}/${dots.id}/file`);
  });

  it('answers 422 for a missing or misnamed file part, 400 for a broken multipart body, 415 for a non-multipart one', async () => {
    const wrongName = await upload({ field: 'file', filename: 'a.png', content: makePng() });
    expect(wrongName.statusCode).toBe(422);
    expect(wrongName.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'attachment[media]' });
    expect(wrongName.json().errors[0].message).toContain('"file"');

    const body = multipart([{ field: 'note', value: 'no file here' }]);
    const noFile = await h.app.inject({
      method: 'POST',
      url: `${SUB}/attachments`,
      payload: body.payload,
      headers: { ...body.headers, 'x-service-api-key': key },
    });
    expect(noFile.statusCode).toBe(422);

    const empty = await upload({ filename: 'empty.png', content: Buffer.alloc(0) });
    expect(empty.statusCode).toBe(422);

    const noBoundary = await h.app.inject({
      method: 'POST',
      url: `${SUB}/attachments`,
      payload: 'x',
      headers: { 'content-type': 'multipart/form-data', 'x-service-api-key': key },
    });
    expect(noBoundary.statusCode).toBe(400);
    expect(noBoundary.json().errors[0].code).toBe('malformed_body');

    const cut = multipart([{ filename: 'cut.png', content: makePng(64, 64) }]);
    const cutShort = await h.app.inject({
      method: 'POST',
      url: `${SUB}/attachments`,
      payload: cut.payload.subarray(0, 300),
      headers: { ...cut.headers, 'x-service-api-key': key },
    });
    expect(cutShort.statusCode).toBe(400);

    const json = await h.app.inject({
      method: 'POST',
      url: `${SUB}/attachments`,
      payload: { attachment: {} },
      headers: { 'x-service-api-key': key },
    });
    expect(json.statusCode).toBe(415);
    expect(json.json().errors[0].code).toBe('unsupported_media_type');
  });

  it('deletes an attachment: bytes and metadata gone, then 404', async () => {
    const { attachment } = (await upload({ filename: 'gone.png', content: makePng() })).json();
    const row = await rowOf(attachment.id);
    const res = await del(attachment.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'OK' });
    expect((await get(`${SUB}/attachments/${attachment.id}`)).statusCode).toBe(404);
    expect((await get(pathOf(attachment.download_url))).statusCode).toBe(404);
    expect((await del(attachment.id)).statusCode).toBe(404);
    expect(await objectKeys(h, row!.object_key)).toEqual([]);
  });

  it("treats another client's attachment as not found", async () => {
    const { attachment } = (await upload({ filename: 'mine.png', content: makePng() })).json();
    const other = await h.client('submission');
    for (const res of [
      await get(`${SUB}/attachments/${attachment.id}`, other.key),
      await get(pathOf(attachment.download_url), other.key),
      await del(attachment.id, other.key),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().errors[0].code).toBe('not_found');
    }
    expect((await get(`${SUB}/attachments/${attachment.id}`)).statusCode).toBe(200);

    expect(await unownedAttachmentIds(h.services.db, clientId, [attachment.id, 'att_unknown', attachment.id])).toEqual(['att_unknown']);
    expect(await unownedAttachmentIds(h.services.db, other.clientId, [attachment.id])).toEqual([attachment.id]);
    expect(await unownedAttachmentIds(h.services.db, clientId, [])).toEqual([]);
  });

  describe('over a real socket, while the client is still sending', () => {
    let port: number;
    beforeAll(async () => {
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      port = (h.app.server.address() as AddressInfo).port;
    });

    /** Sends the multipart body in 64 KiB writes, as a slow client would, and returns the answer. */
    const streamUpload = (content: Buffer, apiKey: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const body = multipart([{ filename: 'stream.png', content }]);
        const req = http.request({
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: `${SUB}/attachments`,
          headers: { ...body.headers, 'x-service-api-key': apiKey, 'content-length': body.payload.length },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        });
        req.on('error', (err) => (/EPIPE|ECONNRESET/.test(String(err)) ? undefined : reject(err)));
        let offset = 0;
        const writeMore = () => {
          while (offset < body.payload.length) {
            const piece = body.payload.subarray(offset, offset + 65536);
            offset += piece.length;
            if (!req.write(piece)) return void req.once('drain', writeMore);
          }
          req.end();
        };
        writeMore();
      });

    it('refuses an oversize stream with 413 and a disguised one with 415, storing nothing', async () => {
      const { key: k3, clientId: c3 } = await h.client('submission');
      const big = await streamUpload(Buffer.concat([makePng(), Buffer.alloc(h.config.ATTACHMENT_MAX_BYTES + 1024 * 1024, 3)]), k3);
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body).errors[0].code).toBe('payload_too_large');
      const text = await streamUpload(Buffer.alloc(3 * 1024 * 1024, 'text '), k3);
      expect(text.status).toBe(415);
      expect(await objectKeys(h, `${c3}/`)).toEqual([]);
      expect(await incompleteUploads(h, `${c3}/`)).toEqual([]);
      for (let i = 0; i < 2; i++) expect((await streamUpload(makePng(), k3)).status).toBe(200);
    });

    /** One upload on a fresh connection; any socket error (EPIPE, ECONNRESET) is returned, not ignored. */
    const uploadOnce = (payload: Buffer, headers: Record<string, string | number>) =>
      new Promise<{ status?: number; body?: string; error?: string }>((resolve) => {
        const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: `${SUB}/attachments`, headers, agent: false });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
          res.on('error', (err) => resolve({ error: String(err) }));
        });
        req.on('error', (err) => resolve({ error: String(err) }));
        req.end(payload);
      });

    it('an early refusal reaches the client every time, never as a reset connection (30 runs)', async () => {
      const apiKey = await h.key('submission');
      const body = multipart([{ filename: 'notes.png', content: Buffer.alloc(512 * 1024, 'not an image ') }]);
      const headers = { ...body.headers, 'x-service-api-key': apiKey, 'content-length': body.payload.length };
      const outcomes: string[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await uploadOnce(body.payload, headers);
        outcomes.push(res.error ?? `${res.status} ${JSON.parse(res.body!).errors[0].code}`);
      }
      expect(outcomes).toEqual(Array(30).fill('415 unsupported_media_type'));
    });
  });
});
