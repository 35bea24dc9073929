import { Command } from 'commander';
import { importPostalCodeFile } from '../../../services/postal-codes';
import { AdminError, output, type AdminContext } from '../context';

/** `postal-codes …`: postal codes beyond the packaged US and Canadian data, as radius-search centres. */
export function postalCodesCommand(ctx: () => AdminContext): Command {
  const postal = new Command('postal-codes').description('postal codes the radius search knows beyond the packaged US and Canadian ones');
  postal
    .command('import')
    .description(
      'import a GeoNames postal-code file (download.geonames.org/export/zip, e.g. DE.txt unzipped; tab-separated, 12 columns); a malformed line refuses the whole file, naming its line; importing again updates in place',
    )
    .argument('<file>', 'the unzipped .txt file')
    .action(async (file: string) => {
      const result = await importPostalCodeFile(ctx(), file).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new AdminError(`no file ${file}`);
        throw err;
      });
      output(result);
    });
  return postal;
}
