import { execFile } from 'node:child_process';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { runAdmin } from '../../main';

const ROOT = path.resolve(__dirname, '..', '..');

type AdminResult = { code: number; stdout: string; stderr: string };

/**
 * Runs the operators' CLI with `args`. By default in this process (`runAdmin`, main/admin/run.ts,
 * with its own streams: a Node process per call cost ~2.5 s of CPU, 65 times a run), or with
 * `viaNpm` as a process of its own through `npm run --silent admin --`, as documented. `env` is
 * its whole environment; `input`, when given, is its stdin (a pipe, as `echo … | npm run admin …`
 * would). The worker that carries out its signals may run in this process.
 */
export function admin(args: string[], env: NodeJS.ProcessEnv = process.env, input?: string, { viaNpm = false } = {}): Promise<AdminResult> {
  env = { ...env, LOG_LEVEL: 'silent' };
  if (!viaNpm) return adminInProcess(args, env, input);
  return new Promise((resolve) => {
    const child = execFile(
      'npm',
      ['run', '--silent', 'admin', '--', ...args],
      { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

async function adminInProcess(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<AdminResult> {
  const collect = () => {
    const chunks: Buffer[] = [];
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        chunks.push(Buffer.from(chunk));
        done();
      },
    });
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const [stdout, stderr] = [collect(), collect()];
  const code = await runAdmin(args, {
    env,
    stdin: Readable.from(input === undefined ? [] : [Buffer.from(input)]),
    stdout: stdout.stream,
    stderr: stderr.stream,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** The JSON an admin command printed (its `--json` answer); a failed command throws with its stderr. */
export function adminJson(res: { code: number | null; stdout: string; stderr: string }) {
  if (res.code !== 0) throw new Error(`admin exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout);
}
