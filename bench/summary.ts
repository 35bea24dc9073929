import type { BenchResults } from './bench-results';
import type { FloorRun } from './floor';
import { round1, round3 } from './load';
import { SEARCH_QUERIES } from './search-queries';

/*
 * The targets, one number each, under `summary` in latest.json so progress can be followed across
 * runs (null when its section did not run). bench/README.md says where each target comes from.
 */

export const SUMMARY_TARGETS: Record<string, string> = {
  orders_c32_ratio: '≥ 0.5 (issue 23)',
  orders_cpu_ms_per_order: '≤ 7 (issue 44)',
  orders_c1_p50_ms: '(its target is the next key)',
  orders_c1_p50_over_floor_ms: "≤ 6 (issue 44: c1 p50 minus the same run's floor c1 p50)",
  orders_c8_p99_ms: '≤ 120 (issue 44)',
  orders_floor_c1_p50_ms: '(Temporal alone: an Update to a workflow that does nothing)',
  orders_floor_cpu_ms_per_update: '(Temporal + worker, at c1)',
  orders_floor_local_c1_p50_ms: '(the same, with a local activity that does nothing)',
  orders_floor_local_cpu_ms_per_update: '(Temporal + worker, at c1)',
  search_100k_ratio: '≤ 1.3',
  search_1m_worst_p50_ms: '≤ 100',
  search_growth_100k_1m: '≤ 1.5',
  search_category_100k_p50_ms: '≤ 50',
  search_deep_page_1m_p50_ms: '(by page number; for comparison)',
  search_deep_after_1m_p50_ms: '(by cursor; issue 24 deep paging: flat with depth)',
  keyword_search_1m_p50_ms: '≤ 50 (issue 47: every class of query pooled)',
  keyword_search_1m_p99_ms: '≤ 150 (issue 47)',
  keyword_search_worst_class_p99_ms: '(the slowest class of query)',
  keyword_search_ndcg10: '≥ 0.9 (issue 47: the judged queries)',
  keyword_search_ilike_ratio: '(a plain ILIKE scan p50 ÷ keyword search p50, pooled)',
  callbacks_fanout_1000_s: '≤ 10',
  statement_1m_vouchers_s: '≤ 2',
  feed_10k_events_s: '≤ 1',
  ratelimit_c8_ratio: '(req/s with the shared limit ÷ with it off, same route; issue 33)',
  ratelimit_c1_p50_added_ms: '(what the shared limit adds to one request, ms)',
  bulk_import_1m_s: '≤ 60 (issue 36: CSV upload to completed)',
  bulk_generate_1m_s: '≤ 60 (issue 36)',
  bulk_import_vs_copy: '(import time ÷ one COPY of the same rows)',
  bulk_peak_rss_mb: '< 300 (the larger of API and worker)',
  bulk_export_1m_s: '≤ 30 (issue 36: POST to the file downloaded)',
  bulk_export_copy_ratio: '(the export ÷ COPY of the same rows)',
  bulk_export_peak_rss_mb: '< 300 (the larger of API and worker)',
};

export function summarize(results: BenchResults): Record<string, number | null> {
  return {
    ...ordersSummary(results),
    ...searchSummary(results),
    ...keywordSummary(results),
    ...otherSummary(results),
    ...bulkSummary(results),
  };
}

/** Temporal's and the floor worker's CPU per update (what the floor measures; the client's is the load). */
const floorCpu = (f?: FloorRun) => (f ? round1((f.cpu_c1.ms_per_order.temporal ?? 0) + (f.cpu_c1.ms_per_order.worker ?? 0)) : null);

function ordersSummary({ orders }: BenchResults) {
  return {
    orders_c32_ratio: orders?.c32?.ratio ?? null,
    orders_cpu_ms_per_order: orders?.cpu_c32?.total_ms_per_order ?? null,
    orders_c1_p50_ms: orders?.c1?.service.p50 ?? null,
    orders_c1_p50_over_floor_ms: orders?.c1 && orders.floor_ping ? round1(orders.c1.service.p50 - orders.floor_ping.c1.p50) : null,
    orders_c8_p99_ms: orders?.c8?.service.p99 ?? null,
    orders_floor_c1_p50_ms: orders?.floor_ping?.c1.p50 ?? null,
    orders_floor_cpu_ms_per_update: floorCpu(orders?.floor_ping),
    orders_floor_local_c1_p50_ms: orders?.floor_ping_local?.c1.p50 ?? null,
    orders_floor_local_cpu_ms_per_update: floorCpu(orders?.floor_ping_local),
  };
}

function searchSummary({ search }: BenchResults) {
  const at100k = search?.offers_100000?.queries;
  const at1m = search?.offers_1000000?.queries;
  const defaults = SEARCH_QUERIES[SEARCH_QUERIES.length - 1];
  return {
    search_100k_ratio: at100k?.[SEARCH_QUERIES[0]]?.p50_ratio ?? null,
    search_1m_worst_p50_ms: at1m ? Math.max(...Object.values(at1m).map((q) => q.service.p50)) : null,
    search_growth_100k_1m: at100k && at1m ? round3(at1m[defaults].service.p50 / at100k[defaults].service.p50) : null,
    search_category_100k_p50_ms: at100k?.['categories=2']?.service.p50 ?? null,
    // The page at offset 500,000 of the first copy's query at 1,000,000 offers: by page number, by cursor.
    search_deep_page_1m_p50_ms: search?.deep_page?.page.p50 ?? null,
    search_deep_after_1m_p50_ms: search?.deep_page?.after.p50 ?? null,
  };
}

function keywordSummary({ keywordSearch: k }: BenchResults) {
  return {
    keyword_search_1m_p50_ms: k?.all.p50 ?? null,
    keyword_search_1m_p99_ms: k?.all.p99 ?? null,
    keyword_search_worst_class_p99_ms: k ? Math.max(...Object.values(k.classes).map((c) => c.p99)) : null,
    keyword_search_ndcg10: k?.ndcg10.mean ?? null,
    keyword_search_ilike_ratio: k?.all.ilike_ratio ?? null,
  };
}

function otherSummary({ callbacksFanout, statements, ratelimit, bulkExports }: BenchResults) {
  const both = statements && 'submission' in statements ? statements : undefined;
  return {
    callbacks_fanout_1000_s: callbacksFanout?.seconds ?? null,
    // The slower of the two statements through HTTP.
    statement_1m_vouchers_s: both ? Math.max(both.submission.service_s, both.distribution.service_s) : null,
    // Events numbered as they come (a reader polls), read whole; the first read, which also numbers
    // all 10,000 at once, is beside it in the results.
    feed_10k_events_s: statements?.feed.second_read_s ?? null,
    ratelimit_c8_ratio: ratelimit?.c8.ratio ?? null,
    ratelimit_c1_p50_added_ms: ratelimit?.c1.p50_added_ms ?? null,
    bulk_export_1m_s: bulkExports?.total_s ?? null,
    bulk_export_copy_ratio: bulkExports?.ratio ?? null,
    bulk_export_peak_rss_mb: bulkExports ? Math.max(bulkExports.peak_rss_mb.api, bulkExports.peak_rss_mb.worker) : null,
  };
}

function bulkSummary({ bulkImports: b }: BenchResults) {
  return {
    bulk_import_1m_s: b?.import.completed_s ?? null,
    bulk_generate_1m_s: b?.generate.completed_s ?? null,
    bulk_import_vs_copy: b?.import_vs_copy ?? null,
    bulk_peak_rss_mb: b ? Math.max(b.peak_rss_mb.api, b.peak_rss_mb.worker) : null,
  };
}
