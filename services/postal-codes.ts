import { createReadStream } from 'node:fs';
import readline from 'node:readline';
import { invalidField } from '../domain/failures';
import { parseGeoNamesPostalLine, type PostalCodeRecord } from '../domain/postal-codes';
import { upsertPostalCodes } from '../store/postal-codes';
import type { ServiceDeps } from './deps';

/*
 * Importing a GeoNames postal-code file (`admin postal-codes import`, docs/distribution-search.md
 * "Postal codes"): the codes of countries the packaged data does not cover become search centres.
 */

/** Lines written per transaction. */
export const IMPORT_BATCH = 1000;
/** Malformed lines listed in the refusal at most (the count says how many more). */
const LISTED = 20;

async function* lines(path: string): AsyncGenerator<{ n: number; line: string }> {
  const rl = readline.createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (line.trim() !== '') yield { n, line };
  }
}

/**
 * Imports the file in two passes: the first checks every line and refuses the whole file (writing
 * nothing) when any is malformed, naming each by its line number; the second upserts the lines in
 * batches of IMPORT_BATCH, one transaction each. Re-importing a file, or a newer one, updates the
 * codes in place, so a run cut short is finished by running it again.
 */
export async function importPostalCodeFile(
  deps: Pick<ServiceDeps, 'db'>,
  path: string,
  batchSize = IMPORT_BATCH,
): Promise<{ imported: number; countries: Record<string, number> }> {
  const bad: string[] = [];
  let count = 0;
  for await (const { n, line } of lines(path)) {
    const parsed = parseGeoNamesPostalLine(line);
    if ('error' in parsed) bad.push(`line ${n}: ${parsed.error}`);
    count++;
  }
  if (bad.length) {
    const more = bad.length > LISTED ? ` (and ${bad.length - LISTED} more)` : '';
    throw invalidField('file', `${path}: ${bad.length} malformed line(s), nothing imported: ${bad.slice(0, LISTED).join('; ')}${more}`);
  }
  if (count === 0) throw invalidField('file', `${path}: no postal codes in the file`);
  const countries: Record<string, number> = {};
  let batch: PostalCodeRecord[] = [];
  for await (const { line } of lines(path)) {
    const { record } = parseGeoNamesPostalLine(line) as { record: PostalCodeRecord };
    countries[record.country_code] = (countries[record.country_code] ?? 0) + 1;
    batch.push(record);
    if (batch.length >= batchSize) {
      await upsertPostalCodes(deps.db, batch);
      batch = [];
    }
  }
  await upsertPostalCodes(deps.db, batch);
  return { imported: count, countries };
}
