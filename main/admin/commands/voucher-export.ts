import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import {
  createVoucherExport,
  findOfferOwner,
  getVoucherExport,
  readVoucherExportFile,
  voucherExportSize,
  type ExportScope,
} from '../../../services/voucher-exports';
import { AdminError, output, type AdminContext } from '../context';
import { watchProgress } from '../progress';

/** `admin vouchers export <offer>`: every voucher of an offer to a CSV file, with a live progress bar. */
export async function exportVouchers(ctx: AdminContext, offerId: string, o: { out?: string; client?: string }) {
  const deps = { db: ctx.db, temporal: await ctx.temporal(), config: ctx.config, log: ctx.log, store: ctx.store };
  // Without --client, the advertiser's own export (every voucher and unissued code); with one, that publisher's.
  const owner = await findOfferOwner(deps, offerId);
  if (!owner) throw new AdminError(`offer ${offerId} not found`);
  const scope: ExportScope = o.client ? { iface: 'distribution', clientId: o.client } : { iface: 'submission', clientId: owner };
  const total = await voucherExportSize(deps, scope, offerId);
  const started = await createVoucherExport(deps, scope, offerId);
  let row = started;
  await watchProgress(`export ${started.id}`, async () => {
    row = await getVoucherExport(deps, scope.clientId, started.id);
    return { done: row.rows, total, finished: row.status === 'completed' || row.status === 'failed' };
  });
  if (row.status !== 'completed') throw new AdminError(`export ${row.id} failed: ${row.error ?? 'unknown error'}`);
  const file = o.out ?? `${row.id}.csv`;
  await pipeline(await readVoucherExportFile(deps, row), fs.createWriteStream(file));
  output({ id: row.id, offer_id: offerId, status: row.status, rows: row.rows, file });
}
