/*
 * Statements (docs/statements.md): a period of whole UTC days, `from` and `to` inclusive, read as
 * the half-open instant range [start of from, start of the day after to).
 */
import { DAY_MS, endOfUtcDayMs, startOfUtcDayMs } from './dates';

/** The longest period one statement covers, in days (a leap year). */
export const STATEMENT_MAX_DAYS = 366;

/** Days from `from` to `to`, both counted; 0 or less when `to` is before `from`. */
export function statementDays(from: string, to: string): number {
  return Math.round((startOfUtcDayMs(to) - startOfUtcDayMs(from)) / DAY_MS) + 1;
}

/** The instants a period covers: at or after `start`, before `end`. */
export function statementRange(from: string, to: string): { start: Date; end: Date } {
  return { start: new Date(startOfUtcDayMs(from)), end: new Date(endOfUtcDayMs(to)) };
}

/** A statement month, `YYYY-MM` (2000-01 to 2999-12), as the monthly statements name them. */
export const STATEMENT_MONTH = /^(2[0-9]{3})-(0[1-9]|1[0-2])$/;

/** The period of a month: its first and last UTC day. */
export function monthPeriod(month: string): { from: string; to: string } {
  const m = STATEMENT_MONTH.exec(month);
  if (!m) throw new Error(`not a month (YYYY-MM): ${month}`);
  const [year, mon] = [Number(m[1]), Number(m[2])];
  // Day 0 of the next month is the last day of this one.
  const last = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${String(last).padStart(2, '0')}` };
}

/** The month before the one `at` falls in (UTC): what the statements made on the 1st cover. */
export function previousMonth(at: Date): string {
  const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The instant a month is over: the start of the next month's first day (UTC). */
export function monthEnd(month: string): Date {
  return statementRange(monthPeriod(month).from, monthPeriod(month).to).end;
}

/**
 * Why a month cannot be stored yet, or null when it is over at `now` (UTC). A stored statement is
 * never made again (a re-run stores only what is missing), so one made before its month ended
 * would stay short forever: the monthly run refuses it (docs/statements.md "Monthly statements").
 */
export function monthNotEnded(month: string, now: Date): string | null {
  const end = monthEnd(month);
  return now.getTime() >= end.getTime()
    ? null
    : `the month ${month} has not ended: it ends at ${end.toISOString()} (UTC), and a month's statements are stored once it is over`;
}
