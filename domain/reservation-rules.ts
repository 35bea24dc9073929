import { refuse } from './failures';

/*
 * The rules of holding and changing a reservation, decided on the rows store/reservations.ts has
 * locked (the offer, the reservation); each refuses with the field the client sent.
 */

/** A hold names an offer this distributor may buy now: `why` is domain/sales.ts's reason it may not. */
export function requireSellableForHold<T>(offerId: string, offer: T | undefined, why: string | undefined): asserts offer is T {
  if (why || !offer) refuse('invalid_field', `offer ${offerId} ${why ?? 'is not available'}`, { field: 'offer_id' });
}

/** A hold takes units of an offer with a stock limit, no more than it has. */
export function requireStockToHold(offerId: string, inStock: number | null, quantity: number): void {
  if (inStock === null)
    refuse('invalid_field', 'this offer has no stock limit; there is nothing to reserve', { field: 'quantity_reserved' });
  if (inStock! < quantity)
    refuse('insufficient_stock', `offer ${offerId} has ${inStock} unit(s) in stock, ${quantity} asked`, {
      field: 'quantity_reserved',
      available: inStock,
    });
}

interface HeldReservation {
  status: string;
  start_date: string;
  end_date: string;
  quantity_reserved: number;
  quantity_in_stock: number;
}

/**
 * The window and the change of quantity a change asks of an active reservation: the window not
 * backwards, the quantity never below the units already sold from it.
 */
export function reservationChangeOf(
  res: HeldReservation,
  c: { start_date?: string; end_date?: string; quantity_reserved?: number },
): { start: string; end: string; delta: number } {
  if (res.status !== 'active') refuse('invalid_state_transition', `the reservation is ${res.status}`);
  const start = c.start_date ?? res.start_date;
  const end = c.end_date ?? res.end_date;
  if (end < start) refuse('invalid_field', 'end_date must not be before start_date', { field: 'end_date' });
  const delta = (c.quantity_reserved ?? res.quantity_reserved) - res.quantity_reserved;
  const sold = res.quantity_reserved - res.quantity_in_stock;
  if (res.quantity_in_stock + delta < 0)
    refuse('invalid_state_transition', `${sold} unit(s) of this reservation are already sold; quantity_reserved cannot go below that`, {
      field: 'quantity_reserved',
    });
  return { start, end, delta };
}

/** Raising a reservation takes that many more units from the offer's stock. */
export function requireStockForChange(offer: { id: string; quantity_in_stock: number | null }, delta: number): void {
  if (delta > (offer.quantity_in_stock ?? 0))
    refuse('insufficient_stock', `offer ${offer.id} has ${offer.quantity_in_stock} more unit(s) in stock, ${delta} asked`, {
      field: 'quantity_reserved',
      available: offer.quantity_in_stock,
    });
}
