import fs from 'node:fs';
import { Command } from 'commander';
import { INTERFACE_PREFIX } from '../../../domain/environment';
import type { CodePattern } from '../../../domain/voucher-imports';
import { toVoucherImport } from '../../../schemas/voucher-import';
import {
  findVoucherImportForOperator,
  generateVouchers,
  importVoucherFile,
  offerClientOf,
  runningVoucherImports,
} from '../../../services/voucher-imports';
import type { VoucherImportRow } from '../../../store/database';
import { AdminError, output, wholeNumber, type AdminContext } from '../context';
import { watchProgress } from '../progress';
import { exportVouchers } from './voucher-export';

const base = (ctx: AdminContext) => `${ctx.config.PUBLIC_BASE_URL ?? ''}${INTERFACE_PREFIX.submission}`;

/** Watches an import to its end with the CLI's progress bar (main/admin/progress.ts), then prints it (stdout). */
async function watch(ctx: AdminContext, started: VoucherImportRow): Promise<void> {
  let row = started;
  await watchProgress(`codes ${started.id}`, async () => {
    row = (await findVoucherImportForOperator(ctx, row.id))!;
    const finished = row.status !== 'queued' && row.status !== 'running';
    return { done: Number(row.rows_imported) + Number(row.rows_rejected), total: Number(row.rows_total), finished };
  });
  output(toVoucherImport(row, base(ctx)));
  if (row.status === 'failed') throw new AdminError(`the import failed: ${row.failure_message}`);
}

/** `vouchers …`: bulk code imports and generation (docs/bulk-vouchers.md). */
export function vouchersCommand(ctx: () => AdminContext): Command {
  const cmd = new Command('vouchers').description("bulk voucher codes of an advertiser's offer");
  const deps = (c: AdminContext) => ({ db: c.db, store: c.store, config: c.config, log: c.log });
  cmd
    .command('import')
    .description('import a CSV file of codes (header redemption_code[,barcode]) into an offer that sells supplied codes; shows progress')
    .argument('<offer>', 'offer id')
    .argument('<file>', 'CSV file')
    .option('--no-wait', 'print the import and return at once')
    .action(async (offerId: string, file: string, o: { wait: boolean }) => {
      const c = ctx();
      if (!fs.existsSync(file)) throw new AdminError(`no file ${file}`);
      const d = { ...deps(c), temporal: await c.temporal() };
      const row = await importVoucherFile(d, await offerClientOf(d, offerId), offerId, fs.createReadStream(file));
      if (o.wait) await watch(c, row!);
      else output(toVoucherImport(row!, base(c)));
    });
  cmd
    .command('generate')
    .description('generate unique codes for an offer that sells supplied codes; shows progress')
    .argument('<offer>', 'offer id')
    .requiredOption('--count <n>', 'codes to make', wholeNumber(1))
    .option('--pattern <mask>', 'a mask such as SALE-####-####: each # a random character')
    .option('--length <n>', 'random characters per code (without --pattern)', wholeNumber(1))
    .option('--charset <chars>', 'characters to draw from (default Crockford base32)')
    .option('--prefix <text>')
    .option('--postfix <text>')
    .option('--no-wait', 'print the import and return at once')
    .action(async (offerId: string, o: { count: number; pattern?: string; wait: boolean } & Omit<CodePattern, 'mask'>) => {
      const c = ctx();
      const d = { ...deps(c), temporal: await c.temporal() };
      const pattern: CodePattern = { mask: o.pattern, length: o.length, charset: o.charset, prefix: o.prefix, postfix: o.postfix };
      const row = await generateVouchers(d, await offerClientOf(d, offerId), offerId, { generate: { count: o.count, pattern } });
      if (o.wait) await watch(c, row);
      else output(toVoucherImport(row, base(c)));
    });
  cmd
    .command('imports')
    .description('imports queued or running, oldest first')
    .action(async () => {
      const c = ctx();
      output((await runningVoucherImports(c)).map((r) => toVoucherImport(r, base(c))));
    });
  cmd
    .command('export')
    .description('write every voucher of an offer (and its unissued codes) to a CSV file, showing progress on stderr')
    .argument('<offer-id>')
    .option('--out <file>', 'where to write the CSV (default: <export id>.csv)')
    .option('--client <distribution-client-id>', "export that publisher's vouchers of the offer only")
    .action((id: string, o: { out?: string; client?: string }) => exportVouchers(ctx(), id, o));
  return cmd;
}
