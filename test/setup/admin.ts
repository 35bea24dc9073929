import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * Runs the operators' CLI exactly as documented: `npm run --silent admin -- …`. Asynchronously:
 * the worker that carries out its signals runs in this very process. `env` is its whole environment.
 */
export function admin(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'admin', '--', ...args],
      { cwd: ROOT, env: { ...env, LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
