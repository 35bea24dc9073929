import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { Failure, notFound } from '../domain/failures';
import { newId } from '../store/ids';
import { findOffer } from '../store/offers';
import { deleteUnstartedExport, findClientExport, findExport, insertVoucherExport } from '../store/voucher-exports';
import type { VoucherExportRow } from '../store/database';
import { countExportRows } from '../store/voucher-export-pages';
import type { VoucherExport } from '../schemas/voucher-export';
import { VOUCHER_EXPORT_WORKFLOW_TYPE, type VoucherExportInput } from '../workflows/voucher-export-messages';
import { voucherExportWorkflowId } from '../workflows/shared/ids';
import { BulkJobKey } from '../workflows/shared/search-attributes';
import type { ServiceDeps } from './deps';
import { readableOffer } from './distribution-offers';
import { requireOffer } from './offers';
import { utcDay } from '../domain/dates';

/*
 * Voucher exports (docs/bulk-offers-and-exports.md). The file is served by the API through a
 * signed link of its own, not a presigned S3 address: the object store is often on a private
 * network (or localhost) the client cannot reach. The link carries its expiry and an HMAC of it
 * under the export's own random key, so it needs no API key, names one file, and stops working
 * at `expires_at`; every read of the export signs a fresh one.
 */

type Deps = Pick<ServiceDeps, 'db' | 'temporal' | 'config' | 'log'>;
export type ExportScope = { iface: 'submission' | 'distribution'; clientId: string };

/** Where the download route is mounted (outside the interfaces: the signature is the key). */
export const VOUCHER_EXPORT_DOWNLOAD_PATH = '/downloads/voucher_exports';

const signature = (row: Pick<VoucherExportRow, 'id' | 'signing_key'>, expires: number) =>
  crypto.createHmac('sha256', row.signing_key).update(`${row.id}.${expires}`).digest('base64url');

/** The export as its client sees it, with a newly signed link once completed. */
export function voucherExportView(deps: Pick<ServiceDeps, 'config'>, row: VoucherExportRow, siteBase: string): VoucherExport {
  // A file the retention deleted has no link (its download answers 410 gone).
  const done = row.status === 'completed' && !row.files_pruned_at;
  const expires = Math.floor(Date.now() / 1000) + deps.config.VOUCHER_EXPORT_LINK_SECONDS;
  const query = new URLSearchParams({ expires: String(expires), signature: signature(row, expires) });
  return {
    id: row.id,
    offer_id: row.offer_id,
    status: row.status,
    rows: row.rows,
    download_url: done ? `${siteBase}${VOUCHER_EXPORT_DOWNLOAD_PATH}/${row.id}?${query.toString()}` : null,
    expires_at: done ? new Date(expires * 1000) : null,
    error: row.error,
    created_at: row.created_at,
    finished_at: row.finished_at,
  };
}

/**
 * The offer whose vouchers this client may export: an advertiser's own; for a publisher, one it may
 * read (GET /offers/:id answers it): an offer it cannot see is 404 here too, never a 202.
 */
async function exportableOffer(deps: Deps, scope: ExportScope, offerId: string): Promise<void> {
  if (scope.iface === 'submission') await requireOffer(deps, scope.clientId, offerId);
  else await readableOffer(deps, scope.clientId, offerId, utcDay());
}

/** Records the export (queued) and starts its workflow; answers it at once (the client polls it). */
export async function createVoucherExport(deps: Deps, scope: ExportScope, offerId: string): Promise<VoucherExportRow> {
  await exportableOffer(deps, scope, offerId);
  const id = newId('vex');
  const row = await insertVoucherExport(deps.db, {
    id,
    client_id: scope.clientId,
    offer_id: offerId,
    interface: scope.iface,
    object_key: `voucher-exports/${id}.csv`,
    signing_key: crypto.randomBytes(32).toString('base64url'),
  });
  const input: VoucherExportInput = {
    exportId: id,
    offerId,
    objectKey: row.object_key,
    ...(scope.iface === 'distribution' ? { distributionClientId: scope.clientId } : {}),
  };
  try {
    await deps.temporal.workflow.start(VOUCHER_EXPORT_WORKFLOW_TYPE, {
      workflowId: voucherExportWorkflowId(id),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [input],
      typedSearchAttributes: [{ key: BulkJobKey, value: 'voucher_export' }],
    });
  } catch (err) {
    await deleteUnstartedExport(deps.db, id);
    deps.log.error({ err, export_id: id }, 'could not start the voucher export workflow');
    throw new Failure('backend_unavailable', 'the export service is unavailable; nothing was started, retry shortly');
  }
  return row;
}

/** This client's export; another client's is not found. */
export async function getVoucherExport(deps: Pick<ServiceDeps, 'db'>, clientId: string, id: string): Promise<VoucherExportRow> {
  return (await findClientExport(deps.db, clientId, id)) ?? Promise.reject(notFound('voucher_export'));
}

/**
 * The file behind a download link, when its signature is right and it has not expired. A wrong
 * signature is not found (it names nothing); an expired one is gone (read the export again).
 */
export async function openVoucherExportFile(
  deps: Pick<ServiceDeps, 'db' | 'store'>,
  id: string,
  link: { expires: number; signature: string },
): Promise<{ stream: Readable; size: number; filename: string }> {
  const row = await findExport(deps.db, id);
  const expected = row && Buffer.from(signature(row, link.expires));
  const given = Buffer.from(link.signature);
  if (!row || row.status !== 'completed' || !expected || expected.length !== given.length || !crypto.timingSafeEqual(expected, given))
    throw notFound('voucher_export');
  if (link.expires * 1000 < Date.now())
    throw new Failure('gone', 'this download link has expired: read the export again (GET /voucher_exports/:id) for a new one');
  if (row.files_pruned_at)
    throw new Failure('gone', "this export's file was deleted after its retention (BULK_FILES_RETENTION_DAYS): make a new export");
  const { size } = await deps.store.client.statObject(deps.store.bucket, row.object_key);
  return { stream: await deps.store.client.getObject(deps.store.bucket, row.object_key), size, filename: `${row.id}.csv` };
}

/** About how many rows an export of this offer for this client will hold (a progress bar's total). */
export function voucherExportSize(deps: Pick<ServiceDeps, 'db'>, scope: ExportScope, offerId: string): Promise<number> {
  return countExportRows(deps.db, { offerId, ...(scope.iface === 'distribution' ? { distributionClientId: scope.clientId } : {}) });
}

/** The object a completed export wrote, for the admin CLI to copy where the operator asked. */
export async function readVoucherExportFile(deps: Pick<ServiceDeps, 'store'>, row: VoucherExportRow): Promise<Readable> {
  return deps.store.client.getObject(deps.store.bucket, row.object_key);
}

/** The submission client whose offer this is (the admin CLI exports as the advertiser); undefined for an unknown offer. */
export async function findOfferOwner(deps: Pick<ServiceDeps, 'db'>, offerId: string): Promise<string | undefined> {
  return (await findOffer(deps.db, offerId))?.client_id;
}
