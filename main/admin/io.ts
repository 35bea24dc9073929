import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Where an admin command reads and writes: the process's own streams and environment when run as
 * `npm run admin`, or those a caller passes to `runAdmin` (the test suite runs the CLI in its own
 * process, which saves starting Node for each of its calls). One run's streams follow its async
 * calls, so runs side by side never mix their output.
 */
export interface AdminIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

const PROCESS_IO: AdminIo = {
  get env() {
    return process.env;
  },
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
};

const current = new AsyncLocalStorage<AdminIo>();

/** The streams of the admin run this code belongs to. */
export const adminIo = (): AdminIo => current.getStore() ?? PROCESS_IO;

/** Runs `fn` with `io` as its streams and environment. */
export const withAdminIo = <T>(io: AdminIo, fn: () => Promise<T>): Promise<T> => current.run(io, fn);
