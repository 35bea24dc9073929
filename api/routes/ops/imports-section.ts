import type { VoucherImport } from '../../../schemas/voucher-import';
import { fmtTime } from './format';
import { html, type SafeHtml } from './html';

/** One running import: its offer, what it does, how far it is (docs/bulk-vouchers.md). */
// prettier-ignore
const importRow = (i: VoucherImport) => html`<tr data-import-id="${i.id}"><td><a href="/ops/offers/${encodeURIComponent(i.offer_id)}">${i.offer_id}</a></td><td>${i.kind}</td><td>${i.status}</td><td class="progress">${String(i.rows_imported + i.rows_rejected)} / ${String(i.rows_total)} (${String(i.rows_total ? Math.floor((100 * (i.rows_imported + i.rows_rejected)) / i.rows_total) : 0)}%)</td><td>${String(i.rows_rejected)}</td><td>${fmtTime(new Date(i.created_at))}</td></tr>
`;

/** The bulk code imports queued or running, under the review queue; nothing when there are none. */
export function runningImportsSection(imports: VoucherImport[]): SafeHtml | string {
  if (imports.length === 0) return '';
  return html`<h2>Voucher imports running <span class="muted">(${String(imports.length)})</span></h2>
    <table>
      <thead>
        <tr>
          <th>Offer</th>
          <th>Kind</th>
          <th>Status</th>
          <th>Rows done</th>
          <th>Rejected</th>
          <th>Started</th>
        </tr>
      </thead>
      <tbody>
        ${imports.map(importRow)}
      </tbody>
    </table>`;
}
