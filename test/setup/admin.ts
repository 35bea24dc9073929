import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** What `npm run admin` runs (package.json's script): the suite starts it without npm, ~0.6 s of CPU less a call. */
const [node, ...nodeArgs] = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { admin: string } }
).scripts.admin.split(' ');
const ADMIN_COMMAND = [node, nodeArgs] as const;

/**
 * Runs the operators' CLI as `npm run --silent admin -- …` does (`viaNpm`: through npm itself, as
 * documented). Asynchronously: the worker that carries out its signals runs in this very process.
 * `env` is its whole environment; `input`, when given, is written to its stdin (a pipe, as
 * `echo … | npm run admin …` would).
 */
export function admin(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  input?: string,
  { viaNpm = false } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [command, commandArgs] = viaNpm ? ['npm', ['run', '--silent', 'admin', '--']] : ADMIN_COMMAND;
  return new Promise((resolve) => {
    const child = execFile(
      command,
      [...commandArgs, ...args],
      { cwd: ROOT, env: { ...env, LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** The JSON an admin command printed (its `--json` answer); a failed command throws with its stderr. */
export function adminJson(res: { code: number | null; stdout: string; stderr: string }) {
  if (res.code !== 0) throw new Error(`admin exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout);
}
