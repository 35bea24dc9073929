import type { BulkImportsResult } from './bulk-imports';
import type { BulkExportBenchResult } from './bulk-exports';
import type { CallbacksResult } from './callbacks';
import type { CallbacksFanoutResult } from './callbacks-fanout';
import type { LoadResult } from './load';
import type { OrdersResult } from './orders';
import type { RateLimitBenchResult } from './ratelimit';
import type { SearchResult } from './search';
import type { KeywordSearchResult } from './search-keywords';
import type { StatementsBenchResult } from './statements';

/**
 * What `npm run bench` writes to bench/results/latest.json: a key per section, each from its latest
 * run (bench/results-merge.ts), then the summary (bench/summary.ts).
 */
export interface BenchResults {
  machine: { cpus: number; node: string };
  at: string;
  /** When and on which commit each section below was last measured (bench/results-merge.ts). */
  measured?: Record<string, { at: string; commit: string }>;
  orders?: OrdersResult;
  /** The same on a real Temporal cluster over mTLS, the worker in its own process (`npm run bench -- orders cluster`). */
  orders_cluster?: OrdersResult;
  search?: SearchResult;
  /** Keyword search (q) at 1,000,000 offers (bench/search-keywords.ts). */
  keywordSearch?: KeywordSearchResult;
  /** Offers created through the API, each with its review workflow started. */
  intake?: LoadResult;
  callbacks?: CallbacksResult;
  callbacksFanout?: CallbacksFanoutResult;
  /** The statements and the feed, or the feed alone (`npm run bench -- feed`). */
  statements?: StatementsBenchResult | Pick<StatementsBenchResult, 'feed'>;
  ratelimit?: RateLimitBenchResult;
  /** Bulk codes: import and generation of 1,000,000 beside COPY (bench/bulk-imports.ts). */
  bulkImports?: BulkImportsResult;
  /** 1,000,000 vouchers exported beside COPY (bench/bulk-exports.ts). */
  bulkExports?: BulkExportBenchResult;
  summary?: Record<string, number | null>;
}
