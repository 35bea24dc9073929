import { mergeResults } from '../../bench/results-merge';
import type { BenchResults } from '../../bench/bench-results';

describe('the committed bench summary (bench/results-merge.ts)', () => {
  const machine = { cpus: 2, node: 'v20' };
  const previous = {
    machine,
    at: '2026-11-25T10:00:00Z',
    search: { offers_100000: { queries: {} } },
    ratelimit: { c1: { p50_added_ms: 1.5 }, c8: { ratio: 0.9 } },
    summary: { orders_sharded_c32_ratio: 0.2, ratelimit_c8_ratio: 0.9 },
  } as unknown as BenchResults;

  it('replaces the sections a run ran with their date and commit, keeps the others, and drops keys no section makes', () => {
    const run = {
      machine,
      at: '2026-11-28T17:00:00Z',
      ratelimit: { c1: { p50_added_ms: 2 }, c8: { ratio: 0.8 } },
    } as unknown as BenchResults;
    const merged = mergeResults(previous, run, 'abc1234');
    expect(merged.search).toBe(previous.search);
    expect(merged.measured).toEqual({
      search: { at: '2026-11-25T10:00:00Z', commit: 'unknown' },
      ratelimit: { at: '2026-11-28T17:00:00Z', commit: 'abc1234' },
    });
    expect(merged.summary).toMatchObject({ ratelimit_c8_ratio: 0.8, ratelimit_c1_p50_added_ms: 2, orders_c32_ratio: null });
    expect(merged.summary).not.toHaveProperty('orders_sharded_c32_ratio');
  });
});
