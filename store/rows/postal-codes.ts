import type { PostalCodeRecord } from '../../domain/postal-codes';
import type { Timestamp } from './columns';

/** A postal code of one place, imported from a GeoNames postal-code file (migration 0018, store/postal-codes.ts). */
export interface PostalCodeTable extends PostalCodeRecord {
  imported_at: Timestamp;
}
