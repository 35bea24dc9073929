import type { Paged } from '../../../domain/paging';
import type { QueuedOffer } from '../../../services/review';
import { fmtDuration, fmtTime } from './format';
import { html, type SafeHtml } from './html';

/** The queue's age filter: offers waiting at least this long. */
export const WAIT_CHOICES = { '1h': 3600, '1d': 86_400, '3d': 3 * 86_400, '7d': 7 * 86_400 } as const;
export type WaitChoice = keyof typeof WAIT_CHOICES;
const WAIT_LABELS: Record<WaitChoice, string> = { '1h': '1 hour', '1d': '1 day', '3d': '3 days', '7d': '7 days' };

/** The filters as the queue's form sent them (and as its links repeat them). */
export interface QueueFilters {
  type?: string;
  category?: number;
  waiting?: WaitChoice;
}

/** What the filter form offers. */
export interface FilterChoices {
  types: readonly string[];
  categories: Array<{ id: number; name: string }>;
}

/** How long an offer has waited: `2 d 4 h`, `3 h 12 min`, `45 s`. */
export const fmtWaited = (since: Date, now: Date) => fmtDuration((now.getTime() - since.getTime()) / 1000);

/** One queued offer. On one line, as it always was: operators (and tests) read the page's rows line by line. */
// prettier-ignore
const queueRow = (r: QueuedRow, now: Date) => html`<tr data-offer-id="${r.id}"${overdue(r, now) ? html` class="overdue" data-overdue="true"` : ''}><td><a href="/ops/offers/${encodeURIComponent(r.id)}">${r.title}</a></td><td>${r.type}</td><td>${r.advertiserName}</td><td>${fmtTime(r.submitted_at)}</td><td class="waited" data-testid="waited">${fmtWaited(r.submitted_at, now)}</td><td data-testid="due">${dueText(r, now)}</td><td data-testid="expected">${r.expectedAt ? fmtTime(r.expectedAt) : '—'}</td></tr>
`;

/** A queued offer with its expected decision time (services/review-times.ts). */
export type QueuedRow = QueuedOffer & { expectedAt: Date | null };

const overdue = (r: QueuedRow, now: Date) => r.dueAt !== null && r.dueAt <= now;
const dueText = (r: QueuedRow, now: Date) =>
  !r.dueAt
    ? '—'
    : overdue(r, now)
      ? `overdue by ${fmtDuration((now.getTime() - r.dueAt.getTime()) / 1000)}`
      : `in ${fmtDuration((r.dueAt.getTime() - now.getTime()) / 1000)}`;

/** The query string of a queue page with these filters. */
function queueHref(filters: QueueFilters, pageNo: number): string {
  const q = new URLSearchParams();
  if (filters.type) q.set('type', filters.type);
  if (filters.category !== undefined) q.set('category', String(filters.category));
  if (filters.waiting) q.set('waiting', filters.waiting);
  if (pageNo > 1) q.set('page', String(pageNo));
  const s = q.toString();
  return s ? `/ops?${s}` : '/ops';
}

const option = (value: string, label: string, selected: boolean) =>
  selected ? html`<option value="${value}" selected>${label}</option>` : html`<option value="${value}">${label}</option>`;

function filterForm(filters: QueueFilters, choices: FilterChoices): SafeHtml {
  return html`<form class="filters" method="get" action="/ops">
    <label
      >Type
      <select name="type">
        ${option('', 'any', !filters.type)} ${choices.types.map((t) => option(t, t, filters.type === t))}
      </select>
    </label>
    <label
      >Category
      <select name="category">
        ${option('', 'any', filters.category === undefined)}
        ${choices.categories.map((c) => option(String(c.id), c.name, filters.category === c.id))}
      </select>
    </label>
    <label
      >Waiting at least
      <select name="waiting">
        ${option('', 'any time', !filters.waiting)}
        ${(Object.keys(WAIT_LABELS) as WaitChoice[]).map((w) => option(w, WAIT_LABELS[w], filters.waiting === w))}
      </select>
    </label>
    <button type="submit">Filter</button>
    ${filters.type || filters.category !== undefined || filters.waiting ? html`<a href="/ops">clear filters</a>` : ''}
  </form>`;
}

/** The queue: one page of the offers waiting for review (those matching the filters), overdue first, with links to the others. */
export function queuePage(
  queue: Paged<QueuedRow>,
  pageNo: number,
  perPage: number,
  filters: QueueFilters = {},
  choices: FilterChoices = { types: [], categories: [] },
  now = new Date(),
): SafeHtml {
  const { rows, total } = queue;
  const pages = Math.max(1, Math.ceil(total / perPage));
  return html`<h1>Waiting for review <span class="muted">(${total})</span></h1>
    ${filterForm(filters, choices)}
    ${
      rows.length === 0
        ? html`<p class="muted">No offer is waiting for review${pageNo > 1 ? ' on this page' : ''}.</p>`
        : html`<table>
            <thead>
              <tr>
                <th>Title</th>
                <th>Type</th>
                <th>Advertiser</th>
                <th>Submitted</th>
                <th>Waiting</th>
                <th>SLA</th>
                <th>Expected decision</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map((r) => queueRow(r, now))}
            </tbody>
          </table>`
    }
    <nav class="pages">
      ${pageNo > 1 ? html`<a href="${queueHref(filters, pageNo - 1)}">← previous page</a>` : ''}
      <span class="muted">page ${pageNo} of ${pages}, overdue first, then the earliest due</span>
      ${pageNo < pages ? html`<a href="${queueHref(filters, pageNo + 1)}">next page →</a>` : ''}
    </nav>`;
}
