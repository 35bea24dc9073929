import { Failure, notFound } from '../domain/failures';
import { newId } from '../store/ids';
import { findClientImport, finishOfferImport, insertOfferImport, rejectedImportLines, type ImportLine } from '../store/offer-imports';
import type { OfferImportRow } from '../store/database';
import type { OfferImport, OfferImportLineError } from '../schemas/offer-import';
import { OFFER_IMPORT_WORKFLOW_TYPE, type OfferImportInput } from '../workflows/offer-import-messages';
import { offerImportWorkflowId } from '../workflows/shared/ids';
import { BulkJobKey } from '../workflows/shared/search-attributes';
import type { ServiceDeps } from './deps';

/*
 * Offer imports (docs/bulk-offers-and-exports.md): the route has checked every line as POST
 * /offers checks its body; this records them and starts the workflow that creates the offers
 * through createOffer (services/offers.ts), the same function POST /offers calls.
 */

type Deps = Pick<ServiceDeps, 'db' | 'temporal' | 'config' | 'log'>;

export type { ImportLine };

/** The import as its client sees it; `errorsUrl` is where its refused lines are listed. */
export function offerImportView(row: OfferImportRow, errorsUrl: string): OfferImport {
  const { id, status, rows_total, rows_created, rows_rejected, created_at, finished_at } = row;
  return { id, status, rows_total, rows_created, rows_rejected, errors_url: errorsUrl, created_at, finished_at };
}

/** Records the import and its checked lines (one transaction) and starts its workflow; one that cannot start is failed (503). */
export async function createOfferImport(deps: Deps, clientId: string, lines: ImportLine[]): Promise<OfferImportRow> {
  const id = newId('oim');
  const row = await insertOfferImport(deps.db, { id, clientId, lines });
  const input: OfferImportInput = { importId: id, clientId };
  try {
    await deps.temporal.workflow.start(OFFER_IMPORT_WORKFLOW_TYPE, {
      workflowId: offerImportWorkflowId(id),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [input],
      typedSearchAttributes: [{ key: BulkJobKey, value: 'offer_import' }],
    });
  } catch (err) {
    // Failed in the same request, never queued for ever (as a voucher import that cannot start).
    deps.log.error({ err, import_id: id }, 'could not start the offer import workflow');
    await finishOfferImport(deps.db, id, 'failed');
    throw new Failure(
      'backend_unavailable',
      `offer import ${id} failed: the import service was unavailable; nothing was imported, retry shortly`,
      {
        offer_import_id: id,
      },
    );
  }
  return row;
}

/** This client's import; another client's is not found. */
export async function getOfferImport(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string): Promise<OfferImportRow> {
  return (await findClientImport(deps.db, clientId, id)) ?? Promise.reject(notFound('offer_import'));
}

/** Every refused line of this client's import so far, in line order, each with the error body POST /offers answers. */
export async function offerImportErrors(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string): Promise<OfferImportLineError[]> {
  await getOfferImport(deps, clientId, id);
  const out: OfferImportLineError[] = [];
  for (let after = 0; ;) {
    const page = await rejectedImportLines(deps.db, id, after, 1000);
    for (const l of page) out.push({ line: l.line, status: 'ERROR', errors: l.errors as unknown[] });
    if (page.length < 1000) return out;
    after = page[page.length - 1].line;
  }
}
