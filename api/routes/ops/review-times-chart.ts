import type { CategoryReviewTimes } from '../../../services/review-times';
import { fmtDuration } from './format';
import { html, type SafeHtml } from './html';

/*
 * The queue page's chart: how long reviews take per category (p50 and p90 of the last decisions),
 * as a small inline SVG drawn on the server (no script: the console's CSP allows none). Screen
 * readers get its title and description and the same figures as a table below it.
 */

/** At most this many categories (the slowest p90 first); the table lists them all. */
const CHART_ROWS = 12;
const ROW_HEIGHT = 22;
const LABEL_WIDTH = 160;
const BAR_WIDTH = 320;

function chartRow(c: CategoryReviewTimes, i: number, max: number): SafeHtml {
  const y = i * ROW_HEIGHT;
  const w = (s: number) => Math.max(1, Math.round((s / max) * BAR_WIDTH));
  return html`<g data-category-id="${c.categoryId}">
    <text x="${LABEL_WIDTH - 6}" y="${y + 15}" text-anchor="end" font-size="12">${c.name}</text>
    <rect x="${LABEL_WIDTH}" y="${y + 3}" width="${w(c.p90)}" height="16" fill="#c7d7ee"><title>p90 ${fmtDuration(c.p90)}</title></rect>
    <rect x="${LABEL_WIDTH}" y="${y + 7}" width="${w(c.p50)}" height="8" fill="#2b5797"><title>p50 ${fmtDuration(c.p50)}</title></rect>
    <text x="${LABEL_WIDTH + w(c.p90) + 4}" y="${y + 15}" font-size="11">${fmtDuration(c.p50)} / ${fmtDuration(c.p90)}</text>
  </g>`;
}

/** The chart and its table, or a line saying no review was decided yet. */
export function reviewTimesSection(categories: CategoryReviewTimes[]): SafeHtml {
  if (categories.length === 0)
    return html`<section data-testid="review-times"><h2>Review times</h2><p class="muted">No review decided yet.</p></section>`;
  const shown = categories.slice(0, CHART_ROWS);
  const max = Math.max(...shown.map((c) => c.p90), 1);
  const height = shown.length * ROW_HEIGHT;
  const summary = shown.map((c) => `${c.name}: median ${fmtDuration(c.p50)}, 90th percentile ${fmtDuration(c.p90)}`).join('; ');
  return html`<section data-testid="review-times">
    <h2>Review times per category</h2>
    <svg role="img" aria-labelledby="rt-title rt-desc" width="${LABEL_WIDTH + BAR_WIDTH + 120}" height="${height}"
      viewBox="0 0 ${LABEL_WIDTH + BAR_WIDTH + 120} ${height}" xmlns="http://www.w3.org/2000/svg">
      <title id="rt-title">Time from submission to decision, per category (last decisions)</title>
      <desc id="rt-desc">Dark bar: median (p50); light bar: 90th percentile (p90). ${summary}.</desc>
      ${shown.map((c, i) => chartRow(c, i, max))}
    </svg>
    <table class="review-times">
      <caption class="muted">The same figures: from the last decisions of each category (at most 200).</caption>
      <thead><tr><th>Category</th><th>Decisions</th><th>p50</th><th>p90</th></tr></thead>
      <tbody>
        ${categories.map((c) => html`<tr><td>${c.name}</td><td>${c.decisions}</td><td>${fmtDuration(c.p50)}</td><td>${fmtDuration(c.p90)}</td></tr>`)}
      </tbody>
    </table>
  </section>`;
}
