import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../platform/free-port';
import { eventually } from './eventually';

const ROOT = path.resolve(__dirname, '..', '..');

/** A process of the service as production runs it (`npm start`'s main/start.ts), its output kept for failure messages. */
export interface ServiceProcess {
  role: 'api' | 'worker';
  child: ChildProcess;
  /** Its HTTP address: the API, or a worker's /metrics and /health. */
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts an API process (RUN_WORKER=false) or a worker process (RUN_API=false), each in a DATA_DIR
 * of its own, with `env` over this process's environment (which names the servers); resolves once
 * it says it is ready, and fails with its output if it exits first.
 */
export async function startServiceProcess(role: 'api' | 'worker', env: Record<string, string>, timeoutMs: number): Promise<ServiceProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `offer-marketplace-${role}-`));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'main', 'start.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      RUN_API: String(role === 'api'),
      RUN_WORKER: String(role === 'worker'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const p: ServiceProcess = {
    role,
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('close', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
  await eventually(
    () => `the ${role} process to be ready:\n${out}`,
    () => {
      if (child.exitCode !== null) throw new Error(`the ${role} process exited (${child.exitCode}):\n${out}`);
      return out.includes('ready; Ctrl-C');
    },
    { timeoutMs },
  );
  return p;
}

/** A task queue of the test's own, so that only its workers take its work. */
export const testTaskQueue = () => `test-${crypto.randomUUID()}`;
