import { setTimeout as sleep } from 'node:timers/promises';
import cliProgress from 'cli-progress';
import { adminIo } from './io';

/*
 * A live progress bar for bulk work (cli-progress) on stderr, so stdout keeps only the result:
 * rows done of the total, rows per second since the start, and the time left at that pace.
 */

export interface ProgressReading {
  done: number;
  total: number;
  /** True once the work has ended (completed or failed). */
  finished: boolean;
}

/** The CLI's one progress loop (no event marks a committed batch): polls `read` every `intervalMs` and draws it until finished. */
export async function watchProgress(label: string, read: () => Promise<ProgressReading>, intervalMs = 500): Promise<ProgressReading> {
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} rows | {rate} rows/s | {eta_formatted} left`,
      stream: adminIo().stderr as NodeJS.WriteStream,
      etaBuffer: 20,
      hideCursor: true,
      // Drawn when stderr is not a terminal too (a log, a CI run), a line per update.
      noTTYOutput: true,
      notTTYSchedule: 2000,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let r = await read();
  bar.start(Math.max(r.total, 1), r.done, { rate: 0 });
  for (;;) {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    bar.setTotal(Math.max(r.total, r.done, 1));
    bar.update(r.done, { rate: Math.round(r.done / seconds) });
    if (r.finished) break;
    await sleep(intervalMs);
    r = await read();
  }
  bar.stop();
  return r;
}
