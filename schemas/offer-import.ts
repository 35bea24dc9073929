import { z } from 'zod';
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
  rows_total: z.number().int(),
  rows_created: z.number().int(),
  rows_rejected: z.number().int(),
  errors_url: z.string().describe('NDJSON: `{line, status, errors}` per refused line'),
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
