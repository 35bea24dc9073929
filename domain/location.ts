/** A postal address: an offer's redemption location, an order's shipping address (every part optional). */
export interface Location {
  address_line_1?: string;
  address_line_2?: string;
  city?: string;
  state_code?: string;
  postal_code?: string;
  country_code?: string;
}

/**
 * An offer's redemption location: an address, optionally with its coordinates (WGS 84 degrees,
 * both or neither). Given coordinates place it in radius searches instead of its postal code.
 */
export interface RedemptionLocation extends Location {
  latitude?: number;
  longitude?: number;
}
