import crypto from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importPostalCodeFile } from '../../../services/postal-codes';
import { admin } from '../../setup/admin';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

/*
 * Postal codes beyond the packaged US and Canadian data: a GeoNames postal-code file imported with
 * `admin postal-codes import` (services/postal-codes.ts), then searched around and used to place
 * offers' redemption locations. Other test files share this database: the codes here are used by
 * no other test, and each search is scoped by a city of its own.
 */
describe('imported postal codes', () => {
  let h: Harness;
  let distKey: string;
  let clientId: string;
  let dir: string;
  beforeAll(async () => {
    h = await createHarness();
    distKey = await h.key('distribution');
    clientId = (await h.client('submission')).clientId;
    dir = mkdtempSync(path.join(tmpdir(), 'postal-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await h.close();
  });

  const get = (query: string) => h.app.inject({ method: 'GET', url: `${DIST}/offers?${query}`, headers: { 'x-service-api-key': distKey } });
  const ids = async (query: string) => {
    const res = await get(query);
    expect(res.statusCode).toBe(200);
    return (res.json().offers as Array<{ id: string }>).map((o) => o.id);
  };
  /** A GeoNames postal-code file (12 tab-separated columns a line) written from rows. */
  const geonamesFile = (name: string, rows: string[][]) => {
    const file = path.join(dir, name);
    writeFileSync(file, rows.map((r) => r.join('\t')).join('\n') + '\n');
    return file;
  };
  const row = (country: string, code: string, place: string, lat: string, lng: string, accuracy = '4') => [
    country,
    code,
    place,
    'State',
    'ST',
    'County',
    '00',
    'Town',
    '000',
    lat,
    lng,
    accuracy,
  ];
  const uniqueCity = () => `Testville ${crypto.randomUUID().slice(0, 8)}`;
  const seedAt = (location: Record<string, unknown>) =>
    seedOffer(h, clientId, {
      advertiser: { name: 'Postal Test Co', categories: [{ id: 2 }], redemption_locations: [{ address_line_1: '1 Main St', ...location }] },
    } as never);
  const storedRows = (country: string, code: string) =>
    h.services.db.selectFrom('postal_codes').selectAll().where('country_code', '=', country).where('postal_code', '=', code).execute();

  it('a Canadian postal code from the packaged data is a centre, of Canada only', async () => {
    const city = uniqueCity();
    const toronto = await seedAt({ city, state_code: 'ON', country_code: 'CA', latitude: 43.6426, longitude: -79.3871 });
    expect(await ids(`postal_code=M5V%203L9&country_code=CA&radius=3&city=${encodeURIComponent(city)}`)).toEqual([toronto]);
    // Montreal's H2X is about 315 miles away.
    expect(await ids(`postal_code=H2X%201Y4&radius=25&city=${encodeURIComponent(city)}`)).toEqual([]);
    const notUs = await get('postal_code=M5V&country_code=US&radius=3');
    expect(notUs.statusCode).toBe(422);
    expect(notUs.json().errors[0].message).toContain('is not a known postal code of US');
  });

  it('searches around an imported code, and places offers at imported codes', async () => {
    const file = geonamesFile('de.txt', [
      row('DE', '14467', 'Potsdam', '52.3989', '13.0657'),
      row('DE', '14469', 'Potsdam', '52.4163', '13.0486'),
      row('DE', '14471', 'Potsdam', '52.3881', '13.0311', ''),
    ]);
    expect(await importPostalCodeFile(h.services, file, 2)).toEqual({ imported: 3, countries: { DE: 3 } });
    const city = uniqueCity();
    // Placed by its coordinates, in Potsdam; and one placed by an imported code alone.
    const byPoint = await seedAt({ city, country_code: 'DE', latitude: 52.4, longitude: 13.06 });
    const byCode = await seedAt({ city, country_code: 'DE', postal_code: '14471' });
    const near = await ids(`postal_code=14467&country_code=DE&radius=5&city=${encodeURIComponent(city)}`);
    expect(near.sort()).toEqual([byPoint, byCode].sort());
    // Berlin's Mitte is about 16 miles from Potsdam.
    expect(await ids(`lat=52.52&lng=13.405&radius=5&city=${encodeURIComponent(city)}`)).toEqual([]);
    expect(await ids(`lat=52.52&lng=13.405&radius=25&city=${encodeURIComponent(city)}`)).toHaveLength(2);
  });

  it('re-importing upserts: a changed line updates its code, nothing is duplicated', async () => {
    const first = geonamesFile('at-1.txt', [row('AT', '8010', 'Graz', '47.0667', '15.45')]);
    await importPostalCodeFile(h.services, first);
    await importPostalCodeFile(h.services, first);
    expect(await storedRows('AT', '8010')).toHaveLength(1);
    const moved = geonamesFile('at-2.txt', [row('AT', '8010', 'Graz', '47.07', '15.44', '6')]);
    await importPostalCodeFile(h.services, moved);
    expect(await storedRows('AT', '8010')).toEqual([expect.objectContaining({ latitude: 47.07, longitude: 15.44, accuracy: 6 })]);
  });

  it('refuses a file with a malformed line, naming its line, and writes none of it', async () => {
    const file = geonamesFile('bad.txt', [
      row('NL', '1011', 'Amsterdam', '52.3731', '4.8922'),
      row('NL', '1012', 'Amsterdam', '52.3738', '4.891'),
      ['NL', '1013', 'Amsterdam', '52.39', '4.88'],
      row('NL', '1014', 'Amsterdam', 'north', '4.87'),
    ]);
    await expect(importPostalCodeFile(h.services, file, 1)).rejects.toThrow(
      /2 malformed line\(s\), nothing imported: line 3: expected 12 .*line 4: latitude "north"/,
    );
    expect(await storedRows('NL', '1011')).toEqual([]);
  });

  it("an unknown code's 422 lists the countries whose codes are known; a code of several countries asks for country_code", async () => {
    const file = geonamesFile('two.txt', [row('CH', '3901', 'Brig', '46.3159', '7.9877'), row('LI', '3901', 'Nowhere', '47.14', '9.52')]);
    await importPostalCodeFile(h.services, file);
    const unknown = await get('postal_code=99999&country_code=DE&radius=5');
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0]).toMatchObject({ field: 'postal_code' });
    expect(unknown.json().errors[0].message).toMatch(/postal codes are known for US, CA, .*CH.*DE/);
    const both = await get('postal_code=3901&radius=5');
    expect(both.statusCode).toBe(422);
    expect(both.json().errors[0].message).toContain('exists in CH, LI: give country_code');
    expect((await get('postal_code=3901&country_code=CH&radius=5')).statusCode).toBe(200);
  });

  it('admin postal-codes import loads a file and prints what it imported; a missing file is an error', async () => {
    const file = geonamesFile('pt.txt', [row('PT', '1100-148', 'Lisboa', '38.7139', '-9.1334', '6')]);
    const res = await admin(['postal-codes', 'import', file]);
    expect([res.code, JSON.parse(res.stdout)]).toEqual([0, { imported: 1, countries: { PT: 1 } }]);
    const city = uniqueCity();
    const lisbon = await seedAt({ city, country_code: 'PT', latitude: 38.72, longitude: -9.14 });
    expect(await ids(`postal_code=1100-148&country_code=PT&radius=2&city=${encodeURIComponent(city)}`)).toEqual([lisbon]);
    const missing = await admin(['postal-codes', 'import', path.join(dir, 'absent.txt')]);
    expect([missing.code, missing.stdout, missing.stderr.trim()]).toEqual([1, '', `error: no file ${path.join(dir, 'absent.txt')}`]);
  });
});
