import { okReply } from '../../../schemas/envelope';
import { z } from 'zod';
import { createOfferImport, getOfferImport, offerImportErrors, offerImportView } from '../../../services/offer-imports';
import { IdParams } from '../../../schemas/common';
import { OfferImportResponse } from '../../../schemas/offer-import';
import { interfaceBaseUrl } from '../../urls';
import { INTERFACE_PREFIX } from '../../../domain/environment';
import { operations, type RoutePlugin } from '../operation';
import { textResponse } from '../shared/file-responses';
import { checkedLines } from './offer-import-lines';

const op = operations('Offers');

/** The NDJSON media types an import takes. */
const NDJSON = ['application/x-ndjson'];

/** The file's size at most: 10,000 offers of about 2 KB each, with room. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;

const NdjsonBody = z.string().describe('One `{"offer": …}` per line, ≤ 10,000');

/**
 * Offer imports (docs/bulk-offers-and-exports.md): a file of offers, each line checked as POST
 * /offers checks its body before the 202; a workflow then creates the valid lines' offers.
 */
export const offerImportRoutes: RoutePlugin = async (app, { deps }) => {
  app.addContentTypeParser(NDJSON, { parseAs: 'string', bodyLimit: MAX_FILE_BYTES }, (_request, body, done) => done(null, body));
  const view = (request: Parameters<typeof interfaceBaseUrl>[0], row: Parameters<typeof offerImportView>[0]) =>
    offerImportView(row, `${interfaceBaseUrl(request, INTERFACE_PREFIX.submission)}/offer_imports/${row.id}/errors`);

  app.post(
    '/offer_imports',
    {
      bodyLimit: MAX_FILE_BYTES,
      ...op('createOfferImport', 'Import offers from an NDJSON file', {
        consumes: NDJSON,
        body: NdjsonBody,
        response: { 202: OfferImportResponse },
      }),
    },
    async (request, reply) => {
      const row = await createOfferImport(deps, request.client.id, await checkedLines(request.body, deps.config.BODY_MAX_BYTES));
      return reply.code(202).send(okReply('offer_import', view(request, row)));
    },
  );

  app.get(
    '/offer_imports/:id',
    op('getOfferImport', 'Get an offer import', { params: IdParams, response: { 200: OfferImportResponse } }),
    async (request) => okReply('offer_import', view(request, await getOfferImport(deps, request.client.id, request.params.id))),
  );

  // NDJSON whatever the Accept: each line the error body POST /offers answers, with its line number.
  app.get(
    '/offer_imports/:id/errors',
    op('listOfferImportErrors', "An import's refused lines (NDJSON)", {
      params: IdParams,
      response: {
        200: textResponse(
          'NDJSON: one JSON object per refused line, the error body POST /offers answers with its line number',
          'application/x-ndjson',
        ),
      },
    }),
    async (request, reply) => {
      const lines = await offerImportErrors(deps, request.client.id, request.params.id);
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .serializer((s: string) => s)
        .send(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    },
  );
};
