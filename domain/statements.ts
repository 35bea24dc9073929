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
