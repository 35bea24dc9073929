import type { Selectable } from 'kysely';
import type { Timestamp } from './columns';

/** A postal code of one place, imported from a GeoNames postal-code file (migration 0018, store/postal-codes.ts). */
export interface PostalCodeTable {
  country_code: string;
  /** Trimmed, upper case, inner spaces collapsed to one (`SW1A 1AA`), as looked up. */
  postal_code: string;
  place_name: string;
  admin1_name: string | null;
  admin1_code: string | null;
  latitude: number;
  longitude: number;
  /** GeoNames' accuracy of the coordinates: 1 estimated, 4 geonameid, 6 centroid of addresses or shape; null when not given. */
  accuracy: number | null;
  imported_at: Timestamp;
}

export type PostalCodeRow = Selectable<PostalCodeTable>;
