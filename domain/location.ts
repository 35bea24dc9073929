/** A postal address as an order's shipping address carries it (every part optional). */
export interface Location {
  address_line_1?: string;
  address_line_2?: string;
  city?: string;
  state_code?: string;
  postal_code?: string;
  country_code?: string;
}
