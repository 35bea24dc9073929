import pino, { type DestinationStream, type Logger } from 'pino';
import { redactLogLine } from './redaction';

export type { Logger };

/**
 * The one logger: JSON lines on stdout, shared by the API, the worker and the stack launcher. Every
 * line passes through the one redaction list (platform/redaction.ts) on its way out, whatever logged
 * it; `stream` replaces stdout (the admin CLI logs to stderr, so its stdout carries only its result;
 * tests read the log from it).
 */
export function createLogger(level: string, opts: { name?: string; stream?: DestinationStream } = {}): Logger {
  return pino(
    { name: opts.name ?? 'offer-marketplace', level, hooks: { streamWrite: redactLogLine } },
    opts.stream ?? pino.destination({ fd: 1, sync: false }),
  );
}

/**
 * Human-readable start-up progress on stderr, so it never mixes with JSON logs or admin CLI output.
 * Each line carries the seconds since this process started (`[stack 2.41s] postgres: ready`), so a
 * slow step shows itself.
 */
export function progress(message: string): void {
  process.stderr.write(`[stack ${(performance.now() / 1000).toFixed(2)}s] ${message}\n`);
}
