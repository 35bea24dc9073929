/** Latency percentiles of a fixed number of requests run at a fixed concurrency. */
export interface LoadResult {
  count: number;
  concurrency: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
}

export function percentile(sortedMs: number[], p: number): number {
  if (!sortedMs.length) return NaN;
  return sortedMs[Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1)];
}

/**
 * Runs `task(i)` for i in [0, count) with `concurrency` in flight, timing each; a task that throws
 * or returns false counts as an error. Bounded in count, so it always ends.
 */
export async function runLoad(count: number, concurrency: number, task: (i: number) => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t = performance.now();
        const ok = await task(i).catch(() => false);
        latencies.push(performance.now() - t);
        if (!ok) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    count,
    concurrency,
    errors,
    seconds: round(seconds),
    perSecond: round(count / seconds),
    p50: round(percentile(latencies, 50)),
    p95: round(percentile(latencies, 95)),
    p99: round(percentile(latencies, 99)),
  };
}
