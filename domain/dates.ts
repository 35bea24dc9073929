/*
 * Calendar days. Offer, reservation and voucher windows are whole UTC days written `YYYY-MM-DD`,
 * so every comparison of "today" against them goes through these helpers.
 */

export const DAY_MS = 86_400_000;

/** The UTC calendar day of `now`, as `YYYY-MM-DD`. */
export function utcDay(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** The instant (ms since the epoch) at which the UTC day `date` (`YYYY-MM-DD`, inclusive) is over. */
export function endOfUtcDayMs(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) + DAY_MS;
}

/** The instant (ms since the epoch) at which the UTC day `date` (`YYYY-MM-DD`) begins. */
export function startOfUtcDayMs(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

/** `date` plus `days` whole days, as `YYYY-MM-DD`. */
export function addDays(date: string, days: number): string {
  return utcDay(new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS));
}
