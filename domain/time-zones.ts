/*
 * An advertiser's IANA time zone (docs/decisions/0077-local-day-and-money-format.md): the day a shop
 * lives by. The counter's "today" and the times it shows follow it; an offer's valid days and a
 * voucher's dates stay UTC days, as the API documents them. Intl carries the tz database, so no
 * library is needed: a name is valid when Intl knows it, and stored in Intl's own spelling.
 */

/** `Area/Location` (one or two levels), `Etc/…`, or `UTC`: the IANA names, no offsets or abbreviations. */
const ZONE_NAME = /^(?:UTC|[A-Za-z]+(?:\/[A-Za-z0-9_+-]+){1,2})$/;

/** The IANA name in Intl's spelling (`europe/paris` → `Europe/Paris`), or undefined for a name Intl does not know. */
export function canonicalTimeZone(name: string): string | undefined {
  if (!ZONE_NAME.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The wall-clock parts of an instant in a zone. */
function partsIn(at: Date, timeZone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number> {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

/** How far the zone's wall clock is ahead of UTC at that instant, in ms. */
function offsetMs(at: Date, timeZone: string): number {
  const p = partsIn(at, timeZone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at.getTime() / 1000) * 1000;
}

/** The local date (`YYYY-MM-DD`) of an instant in the zone. */
export function localDay(at: Date, timeZone: string): string {
  const p = partsIn(at, timeZone);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The local time (`HH:MM`) of an instant in the zone. */
export function localTime(at: Date, timeZone: string): string {
  const p = partsIn(at, timeZone);
  return `${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}`;
}

/** The instant the local day of `at` began in the zone (its first instant, across a DST change too). */
export function startOfLocalDay(at: Date, timeZone: string): Date {
  const [y, m, d] = localDay(at, timeZone).split('-').map(Number);
  const wallMidnight = Date.UTC(y, m - 1, d);
  // The offset at midnight may differ from the offset now (a DST change that day): settle it in two steps.
  let guess = wallMidnight - offsetMs(new Date(wallMidnight), timeZone);
  guess = wallMidnight - offsetMs(new Date(guess), timeZone);
  // A zone whose day starts at 01:00 (midnight skipped by DST) starts it at the first instant of that date.
  while (localDay(new Date(guess), timeZone) < localDay(at, timeZone)) guess += 15 * 60_000;
  return new Date(guess);
}
