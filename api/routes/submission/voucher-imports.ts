import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { ServiceDeps } from '../../../services/deps';
import {
  generateVouchers,
  getVoucherImport,
  importVoucherFile,
  listVoucherImports,
  MAX_IMPORT_FILE_BYTES,
  voucherImportErrorsCsv,
} from '../../../services/voucher-imports';
import { IdParams } from '../../../schemas/common';
import { listReply, okReply } from '../../../schemas/envelope';
import { PageQuery } from '../../../schemas/pagination';
import {
  toVoucherImport,
  VOUCHER_IMPORT_FILE_FIELD,
  VoucherImportCreate,
  VoucherImportList,
  VoucherImportResponse,
} from '../../../schemas/voucher-import';
import { ApiError, invalidField } from '../../errors';
import { mediaTypeOf } from '../../plugins/content-negotiation';
import { claimUpload } from '../../plugins/idempotency';
import { interfaceBaseUrl } from '../../urls';
import { operations, type RouteApp, type RoutePlugin } from '../operation';
import { receiveFilePart, untruncated } from './file-part';
import { textResponse } from '../shared/file-responses';

const op = operations('Vouchers');

/** The file's bytes: the raw body (text/csv) or the one multipart part `voucher_import[file]` (file-part.ts, as attachments read theirs). */
async function fileOf(request: FastifyRequest): Promise<AsyncIterable<Buffer>> {
  if (!request.isMultipart()) return request.raw;
  const part = await receiveFilePart(request, VOUCHER_IMPORT_FILE_FIELD, MAX_IMPORT_FILE_BYTES);
  return untruncated(
    part,
    () => new ApiError(413, 'payload_too_large', `${VOUCHER_IMPORT_FILE_FIELD}: larger than ${MAX_IMPORT_FILE_BYTES} bytes`),
  );
}

/** A file body: multipart, or text/csv (media types are case-insensitive: TEXT/CSV is one too). */
const isFile = (request: FastifyRequest) => request.isMultipart() || mediaTypeOf(request) === 'text/csv';

/**
 * POST /offers/:id/voucher_imports (a CSV file, or JSON/XML `{voucher_import: {generate}}`), its
 * list, GET /voucher_imports/:id and its errors CSV (docs/bulk-vouchers.md). The CSV and multipart
 * parsers live in this plugin only: the file is streamed by the service, never parsed whole here.
 */
export const voucherImportRoutes: RoutePlugin = async (app, { deps }) => {
  await app.register(multipart, { throwFileSizeLimit: false });
  // The body is left unread: the handler streams request.raw to the object store.
  app.addContentTypeParser('text/csv', (_request, _payload, done) => done(null, undefined));
  const base = (request: FastifyRequest) => interfaceBaseUrl(request, app.prefix);
  // A JSON or XML body is known by its content: its Idempotency-Key is claimed before validation,
  // so a refused body's answer is kept and replayed too. A file is claimed once streamed (its digest).
  app.addHook('preValidation', async (request, reply) => {
    if (!isFile(request) && request.body != null) await claimUpload(request, reply, request.body);
  });

  app.post(
    '/offers/:id/voucher_imports',
    {
      ...op('createVoucherImport', 'Import codes (text/csv, multipart voucher_import[file]) or generate them', {
        params: IdParams,
        body: VoucherImportCreate,
        response: { 202: VoucherImportResponse },
      }),
      // A file body is no JSON: the schema checks JSON and XML bodies only.
      validatorCompiler: (s) => {
        const check = validatorCompiler(s as unknown as Parameters<typeof validatorCompiler>[0]);
        return (data: unknown) => (s.httpPart === 'body' && data == null ? { value: undefined } : check(data));
      },
      config: { bodyIsFile: true },
    },
    async (request, reply) => {
      const clientId = request.client.id;
      const offerId = request.params.id;
      let row;
      if (isFile(request)) {
        const bytes = await fileOf(request);
        row = await importVoucherFile(deps, clientId, offerId, bytes, (upload) => claimUpload(request, reply, upload));
        if (!row) return reply;
      } else {
        if (request.body == null)
          throw invalidField(
            'voucher_import',
            'send a CSV file (text/csv or multipart voucher_import[file]) or {voucher_import: {generate}}',
          );
        row = await generateVouchers(deps, clientId, offerId, request.body.voucher_import);
      }
      return reply.code(202).send(okReply('voucher_import', toVoucherImport(row, base(request))));
    },
  );
  readRoutes(app, deps, base);
};

/** The list, one import, and its errors CSV. */
function readRoutes(app: RouteApp, deps: ServiceDeps, base: (request: FastifyRequest) => string): void {
  app.get(
    '/offers/:id/voucher_imports',
    op('listVoucherImports', "List an offer's voucher imports", {
      params: IdParams,
      querystring: PageQuery,
      response: { 200: VoucherImportList },
    }),
    async (request) => {
      const { rows, total } = await listVoucherImports(deps, request.client.id, request.params.id, request.query);
      return listReply('voucher_imports', { rows: rows.map((r) => toVoucherImport(r, base(request))), total }, request.query);
    },
  );

  app.get(
    '/voucher_imports/:id',
    op('getVoucherImport', 'Get a voucher import', { params: IdParams, response: { 200: VoucherImportResponse } }),
    async (request) =>
      okReply('voucher_import', toVoucherImport(await getVoucherImport(deps, request.client.id, request.params.id), base(request))),
  );

  app.get(
    '/voucher_imports/:id/errors.csv',
    op('getVoucherImportErrors', "A voucher import's rejected rows (CSV: row, redemption_code, error)", {
      params: IdParams,
      response: {
        200: textResponse('The rejected rows as CSV: a header row (row, redemption_code, error), then one row each', 'text/csv'),
      },
    }),
    async (request, reply) => {
      const row = await getVoucherImport(deps, request.client.id, request.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('cache-control', 'private, no-store')
        .send(Readable.from(voucherImportErrorsCsv(deps, row)));
    },
  );
}
