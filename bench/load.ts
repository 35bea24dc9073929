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

/** Times `count` runs of `task(i)` with `concurrency` in flight, appending each latency to `latencies`; returns the errors and seconds. */
async function timeRuns(count: number, concurrency: number, task: (i: number) => Promise<boolean>, latencies: number[]) {
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
  return { errors, seconds: (performance.now() - started) / 1000 };
}

/** Figures as the results show them: one decimal (milliseconds, rates), three (ratios). */
export const round1 = (x: number) => Math.round(x * 10) / 10;
export const round3 = (x: number) => Math.round(x * 1000) / 1000;

function summary(count: number, concurrency: number, errors: number, seconds: number, latencies: number[]): LoadResult {
  latencies.sort((a, b) => a - b);
  return {
    count,
    concurrency,
    errors,
    seconds: round1(seconds),
    perSecond: round1(count / seconds),
    p50: round1(percentile(latencies, 50)),
    p95: round1(percentile(latencies, 95)),
    p99: round1(percentile(latencies, 99)),
  };
}

/**
 * Runs `task(i)` for i in [0, count) with `concurrency` in flight, timing each; a task that throws
 * or returns false counts as an error. Bounded in count, so it always ends.
 */
export async function runLoad(count: number, concurrency: number, task: (i: number) => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  const { errors, seconds } = await timeRuns(count, concurrency, task, latencies);
  return summary(count, concurrency, errors, seconds, latencies);
}

/**
 * Two tasks measured side by side: `rounds` alternating batches of each (a, b, a, b…), so that a
 * shared machine's load, which comes and goes, weighs on both alike. `count` runs of each in all.
 */
export async function runPaired(
  count: number,
  concurrency: number,
  rounds: number,
  a: (i: number) => Promise<boolean>,
  b: (i: number) => Promise<boolean>,
): Promise<[LoadResult, LoadResult]> {
  const runs = [a, b].map((task) => ({ task, latencies: [] as number[], errors: 0, seconds: 0 }));
  for (let r = 0; r < rounds; r++) {
    for (const run of runs) {
      const { errors, seconds } = await timeRuns(Math.ceil(count / rounds), concurrency, run.task, run.latencies);
      run.errors += errors;
      run.seconds += seconds;
    }
  }
  const [ra, rb] = runs.map((run) => summary(run.latencies.length, concurrency, run.errors, run.seconds, run.latencies));
  return [ra, rb];
}
