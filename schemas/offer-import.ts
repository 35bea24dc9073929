import { z } from 'zod';
import { OFFER_IMPORT_MAX_LINES } from '../domain/bulk';
import { okEnvelope } from './envelope';
import { Timestamp } from './common';
import { BulkStatus } from './voucher-export';

/*
 * An offer import (docs/bulk-offers-and-exports.md): an NDJSON file, one `{"offer": …}` per line,
 * each line validated and created as POST /offers would; `errors_url` lists the refused lines.
 */

export const OfferImport = z.object({
  id: z.string(),
  status: BulkStatus,
  rows_total: z.number().int().describe(`Lines in the file (blank lines not counted; at most ${OFFER_IMPORT_MAX_LINES})`),
  rows_created: z.number().int().describe('Lines that became an offer (pending review) so far'),
  rows_rejected: z.number().int().describe('Lines refused so far, each listed at errors_url'),
  errors_url: z.string().describe('NDJSON, one `{line, status, errors}` per refused line: the error body POST /offers answers'),
  created_at: Timestamp,
  finished_at: Timestamp.nullable(),
});
export type OfferImport = z.infer<typeof OfferImport>;

export const OfferImportResponse = okEnvelope('offer_import', OfferImport);

/** One refused line of an import, as errors_url lists it. */
export interface OfferImportLineError {
  line: number;
  status: 'ERROR';
  errors: unknown[];
}
