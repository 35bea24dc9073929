import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A local server process we started and must stop: its output goes to a log file under DATA_DIR. */
export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  stop(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

/**
 * Stops a server left behind by an earlier run that was killed (kill -9 skips our shutdown),
 * so its port and data files are free again. The pid file names the process.
 */
export async function stopLeftover(pidFile: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
    process.kill(pid, signal);
    if (!(await waitForExit(pid, 15_000))) process.kill(pid, 'SIGKILL');
  }
  fs.rmSync(pidFile, { force: true });
}

export function startProcess(opts: {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  logDir: string;
  pidFile: string;
}): ManagedProcess {
  fs.mkdirSync(opts.logDir, { recursive: true });
  const logFile = path.join(opts.logDir, `${opts.name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(opts.command, opts.args, { env: opts.env ?? process.env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  if (child.pid) fs.writeFileSync(opts.pidFile, String(child.pid));
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  return {
    name: opts.name,
    child,
    logFile,
    async stop() {
      if (!exited && child.pid) {
        child.kill('SIGTERM');
        if (!(await waitForExit(child.pid, 15_000))) child.kill('SIGKILL');
      }
      fs.rmSync(opts.pidFile, { force: true });
    },
  };
}

function logTail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Polls `probe` until it resolves true, failing early when the process dies; says where its log is. */
export async function waitUntilReady(proc: ManagedProcess, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let exitCode: number | null = null;
  proc.child.once('exit', (code) => {
    exitCode = code ?? -1;
  });
  while (Date.now() < until) {
    if (exitCode !== null)
      throw new Error(`${proc.name} exited with code ${exitCode} during start-up; ${proc.logFile} ends with:\n${logTail(proc.logFile)}`);
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${proc.name} did not become ready within ${timeoutMs / 1000} s; see ${proc.logFile}`);
}
