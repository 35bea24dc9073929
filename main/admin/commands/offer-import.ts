import fs from 'node:fs';
import { createOfferImport, getOfferImport, offerImportErrors, type ImportLine } from '../../../services/offer-imports';
import { AdminError, output, type AdminContext } from '../context';
import { watchProgress } from '../progress';

/**
 * The API's own check of an import file's lines (api/routes/submission/offer-import-lines.ts),
 * handed in by main/admin/cli.ts: commands do not import api/, and a line must be judged as
 * POST /offer_imports judges it. Throws an Error saying why the file as a whole is refused.
 */
export type CheckImportFile = (file: string, maxLineBytes: number) => Promise<ImportLine[]>;

/**
 * `admin offers import FILE --client ID`: an NDJSON file of offers imported for a submission
 * client as POST /offer_imports does (the same line checks, the same workflow), with a live
 * progress bar; prints the import and its refused lines.
 */
export async function importOffers(ctx: AdminContext, check: CheckImportFile, file: string, o: { client: string }) {
  const deps = { db: ctx.db, temporal: await ctx.temporal(), config: ctx.config, log: ctx.log };
  let lines;
  try {
    lines = await check(fs.readFileSync(file, 'utf8'), ctx.config.BODY_MAX_BYTES);
  } catch (err) {
    throw new AdminError(`${file}: ${(err as Error).message}`);
  }
  const started = await createOfferImport(deps, o.client, lines);
  let i = started;
  await watchProgress(`import ${started.id}`, async () => {
    i = await getOfferImport(deps, o.client, started.id);
    return { done: i.rows_created + i.rows_rejected, total: i.rows_total, finished: i.status === 'completed' || i.status === 'failed' };
  });
  const { id, status, rows_total, rows_created, rows_rejected } = i;
  output({ id, status, rows_total, rows_created, rows_rejected, errors: await offerImportErrors(deps, o.client, id) });
}
