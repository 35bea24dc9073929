import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { BenchResults } from './bench-results';
import { summarize } from './summary';

/*
 * The committed summary (bench/results/latest.json) is the union of the sections' latest runs: a
 * run replaces the sections it ran, each recorded with the date and commit it was measured on
 * (`measured`), keeps the others as they were, and recomputes the summary from the whole, so a key
 * no section makes any more (a removed design's) leaves with the next run of any section.
 */

/** The sections a run may add (every key of BenchResults but the run's own facts). */
const SECTION_KEYS = [
  'orders',
  'orders_cluster',
  'search',
  'keywordSearch',
  'intake',
  'callbacks',
  'callbacksFanout',
  'statements',
  'ratelimit',
  'bulkImports',
  'bulkExports',
] as const satisfies ReadonlyArray<keyof BenchResults>;

export function mergeResults(previous: BenchResults | undefined, run: BenchResults, commit: string): BenchResults {
  const merged: BenchResults = { machine: run.machine, at: run.at, measured: { ...previous?.measured } };
  for (const key of SECTION_KEYS) {
    const ran = run[key] !== undefined;
    const section = ran ? run[key] : previous?.[key];
    if (section === undefined) continue;
    Object.assign(merged, { [key]: section });
    // A section recorded before `measured` existed was measured with the run that wrote the file.
    merged.measured![key] = ran ? { at: run.at, commit } : (previous?.measured?.[key] ?? { at: previous!.at, commit: 'unknown' });
  }
  merged.summary = summarize(merged);
  return merged;
}

/** The committed results, which a run's sections update. */
export function readPrevious(): BenchResults | undefined {
  const file = path.join(__dirname, 'results', 'latest.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as BenchResults) : undefined;
}

/** The commit measured, `-dirty` when the work tree had changes not committed. */
export function commitMeasured(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: __dirname, encoding: 'utf8' }).trim();
  return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain') ? '-dirty' : ''}`;
}
