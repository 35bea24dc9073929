import pino, { type Logger } from 'pino';

export type { Logger };

/** The one logger: JSON lines on stdout, shared by the API, the worker and the stack launcher. */
export function createLogger(level: string, name = 'offer-marketplace'): Logger {
  return pino({ name, level, redact: ['req.headers["x-service-api-key"]', 'headers["x-service-api-key"]'] });
}

/** Human-readable start-up progress on stderr, so it never mixes with JSON logs or admin CLI output. */
export function progress(message: string): void {
  process.stderr.write(`[stack] ${message}\n`);
}
