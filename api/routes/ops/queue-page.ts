import type { Paged } from '../../../domain/paging';
import type { QueuedOffer } from '../../../services/review';
import { fmtTime } from './format';
import { html, type SafeHtml } from './html';

/** One queued offer. On one line, as it always was: operators (and tests) read the page's rows line by line. */
// prettier-ignore
const queueRow = (r: QueuedOffer) => html`<tr data-offer-id="${r.id}"><td><a href="/ops/offers/${encodeURIComponent(r.id)}">${r.title}</a></td><td>${r.type}</td><td>${r.advertiserName}</td><td>${fmtTime(r.submitted_at)}</td></tr>
`;

/** The queue: one page of the offers waiting for review, oldest first, with links to the others. */
export function queuePage(queue: Paged<QueuedOffer>, pageNo: number, perPage: number): SafeHtml {
  const { rows, total } = queue;
  const pages = Math.max(1, Math.ceil(total / perPage));
  return html`<h1>Waiting for review <span class="muted">(${total})</span></h1>
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
              </tr>
            </thead>
            <tbody>
              ${rows.map(queueRow)}
            </tbody>
          </table>`
    }
    <nav class="pages">
      ${pageNo > 1 ? html`<a href="/ops?page=${pageNo - 1}">← previous page</a>` : ''}
      <span class="muted">page ${pageNo} of ${pages}, oldest first</span>
      ${pageNo < pages ? html`<a href="/ops?page=${pageNo + 1}">next page →</a>` : ''}
    </nav>`;
}
