import { formatMoney, type Money } from '../../../domain/money';
import { html, type SafeHtml } from './html';

/*
 * Small formatters the console's pages share: times, money, the status badge, field lists.
 */

/** A timestamp as `YYYY-MM-DD HH:MM:SS UTC`, or a dash. */
export const fmtTime = (d: Date | string | null | undefined) =>
  d ? (d instanceof Date ? d.toISOString() : d).replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—';

/** A duration in its two largest units: `2 d 4 h`, `3 h 12 min`, `45 s`. */
export function fmtDuration(seconds: number): string {
  let s = Math.max(0, Math.floor(seconds));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    if (s >= size || (unit === 's' && parts.length === 0)) parts.push(`${Math.floor(s / size)} ${unit}`);
    s %= size;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** Minor units shown in their currency's format (`$45.00`, domain/money.ts), or a dash. */
export const fmtMoney = (m: Money | undefined): string => (m ? formatMoney(m) : '—');

/** The offer's status as a coloured badge. */
export const statusBadge = (status: string) => html`<span class="status status-${status}" data-testid="status">${status}</span>`;

/** A definition list, leaving out empty values. */
export function fields(rows: Array<[string, SafeHtml | string | number | null | undefined]>): SafeHtml {
  const shown = rows.filter(([, v]) => v !== undefined && v !== null && v !== '');
  if (shown.length === 0) return html`<p class="muted">none</p>`;
  return html`<dl>
    ${shown.map(
      ([k, v]) =>
        html`<dt>${k}</dt>
          <dd>${v as SafeHtml | string | number}</dd>`,
    )}
  </dl>`;
}
