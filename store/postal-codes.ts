import { sql } from 'kysely';
import { importedPostalCentre, normalizePostalCode, type PostalCodeRecord } from '../domain/postal-codes';
import type { Coordinates } from '../domain/offer-search';
import type { Db, Trx } from './db';

/*
 * The imported postal codes (migration 0018): every read and write of postal_codes. Written by
 * `admin postal-codes import` (services/postal-codes.ts), read by the search centre and the
 * placing of offers' redemption locations after the packaged `zipcodes` data (platform/geodata.ts).
 */

/**
 * Upserts one batch in one transaction: a code and place imported before gets the file's values.
 * Within the batch the last line of a key wins (one INSERT may not update a row twice).
 */
export async function upsertPostalCodes(db: Db, records: readonly PostalCodeRecord[]): Promise<void> {
  const byKey = new Map(records.map((r) => [`${r.country_code}\t${r.postal_code}\t${r.place_name}`, r]));
  if (!byKey.size) return;
  await db.transaction().execute((trx) =>
    trx
      .insertInto('postal_codes')
      .values([...byKey.values()])
      .onConflict((oc) =>
        oc.columns(['country_code', 'postal_code', 'place_name']).doUpdateSet((eb) => ({
          admin1_name: eb.ref('excluded.admin1_name'),
          admin1_code: eb.ref('excluded.admin1_code'),
          latitude: eb.ref('excluded.latitude'),
          longitude: eb.ref('excluded.longitude'),
          accuracy: eb.ref('excluded.accuracy'),
          imported_at: sql<Date>`now()`,
        })),
      )
      .execute(),
  );
}

/**
 * Where an imported postal code lies (importedPostalCentre, domain/postal-codes.ts): per country
 * that has it, the mean of its places' points, as a code serving several villages is centred
 * among them. `countries` lists those that have it when, without `countryCode`, more than one does.
 */
export async function locateImportedPostalCode(
  db: Db | Trx,
  postalCode: string,
  countryCode?: string,
): Promise<{ centre?: Coordinates; countries?: string[] }> {
  let q = db
    .selectFrom('postal_codes')
    .select(['country_code', sql<number>`avg(latitude)`.as('latitude'), sql<number>`avg(longitude)`.as('longitude')])
    .where('postal_code', '=', normalizePostalCode(postalCode))
    .groupBy('country_code')
    .orderBy('country_code');
  if (countryCode) q = q.where('country_code', '=', countryCode);
  return importedPostalCentre(await q.execute());
}

/** The countries with imported postal codes, alphabetically (a loose index scan: one probe per country, not a pass over every code). */
export async function importedPostalCountries(db: Db): Promise<string[]> {
  const { rows } = await sql<{ country_code: string }>`
    with recursive c(country_code) as (
      (select country_code from postal_codes order by country_code limit 1)
      union all
      select (select p.country_code from postal_codes p where p.country_code > c.country_code order by p.country_code limit 1)
      from c where c.country_code is not null
    )
    select country_code from c where country_code is not null`.execute(db);
  return rows.map((r) => r.country_code);
}
