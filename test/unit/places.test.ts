import { pickCity, placeKey, type GazetteerCity } from '../../domain/places';
import { parseGeoNamesPostalLine } from '../../domain/postal-codes';

const city = (name: string, country_code: string, admin1: string, population: number): GazetteerCity => ({
  name,
  country_code,
  admin1,
  population,
  latitude: 0,
  longitude: 0,
});

describe('city names and the choice among same-named cities', () => {
  it('compares names without case, accents or extra spaces', () => {
    expect(placeKey('  Montréal ')).toBe(placeKey('MONTREAL'));
    expect(placeKey('São  Paulo')).toBe('sao paulo');
    expect(placeKey('Zürich')).not.toBe(placeKey('Zurich West'));
  });

  it('narrows by state (GeoNames admin1, or a Canadian province abbreviation) and country, then takes the most populous', () => {
    const portlands = [city('Portland', 'US', 'ME', 66_881), city('Portland', 'US', 'OR', 632_309), city('Portland', 'AU', '07', 9_429)];
    expect(pickCity(portlands)?.admin1).toBe('OR');
    expect(pickCity(portlands, 'me')?.admin1).toBe('ME');
    expect(pickCity(portlands, undefined, 'au')?.country_code).toBe('AU');
    expect(pickCity(portlands, 'TX')).toBeUndefined();
    const london = [city('London', 'GB', 'ENG', 8_961_989), city('London', 'CA', '08', 346_765)];
    expect(pickCity(london, 'ON')?.country_code).toBe('CA');
    expect(pickCity(london, '08', 'CA')?.country_code).toBe('CA');
    expect(pickCity(london)?.country_code).toBe('GB');
  });
});

describe('a GeoNames postal-code line', () => {
  const line = (...f: string[]) => f.join('\t');
  it('reads the code, place, state and point, normalizing the code', () => {
    expect(
      parseGeoNamesPostalLine(
        line('GB', 'sw1a  1aa', 'London', 'England', 'ENG', 'Greater London', '11609024', '', '', '51.5010', '-0.1416', '6'),
      ),
    ).toEqual({
      record: {
        country_code: 'GB',
        postal_code: 'SW1A 1AA',
        place_name: 'London',
        admin1_name: 'England',
        admin1_code: 'ENG',
        latitude: 51.501,
        longitude: -0.1416,
        accuracy: 6,
      },
    });
  });

  it('keeps coordinates to 6 decimals, so one nearer zero than the point index can hold becomes 0', () => {
    const point = (lat: string, lng: string) => {
      const parsed = parseGeoNamesPostalLine(line('EC', '090101', 'Quito', '', '', '', '', '', '', lat, lng, ''));
      return 'record' in parsed ? [parsed.record.latitude, parsed.record.longitude] : parsed.error;
    };
    expect(point('-0.00000001', '0.1234567891')).toEqual([0, 0.123457]);
    expect(Object.is(point('-0.00000001', '0')[0], -0)).toBe(false);
  });

  it('says why a line is malformed', () => {
    expect(parseGeoNamesPostalLine('DE\t10115\tBerlin')).toEqual({ error: 'expected 12 tab-separated columns, found 3' });
    const bad = (i: number, v: string) => {
      const f = ['DE', '10115', 'Berlin', 'Berlin', 'BE', '', '', '', '', '52.53', '13.38', '4'];
      f[i] = v;
      return (parseGeoNamesPostalLine(f.join('\t')) as { error: string }).error;
    };
    expect(bad(0, 'de')).toMatch(/country code/);
    expect(bad(1, ' ')).toMatch(/postal code/);
    expect(bad(9, '95')).toMatch(/latitude/);
    expect(bad(10, '1e2')).toMatch(/longitude/);
    expect(bad(11, 'x')).toMatch(/accuracy/);
  });
});
