import { execFile } from 'node:child_process';
import path from 'node:path';

/**
 * The short chaos run (`npm run chaos -- --short`): faults under load, then every invariant checked.
 */
describe('chaos under load', () => {
  it('keeps every order invariant through a worker SIGKILL, a Temporal restart, a Postgres restart and a SIGKILL of an API+worker process mid-order', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'npm',
        ['run', '--silent', 'chaos', '--', '--short'],
        {
          cwd: path.resolve(__dirname, '..', '..', '..'),
          env: process.env,
          timeout: 280_000,
          maxBuffer: 10 * 1024 * 1024,
        },
        (err, out, errOut) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errOut }),
      ),
    );
    for (const fault of [
      'kill -9 the worker',
      'restart the Temporal server',
      'restart Postgres',
      'kill -9 the API+worker process mid-order',
    ])
      expect(stdout).toContain(`recovered: ${fault}`);
    // The killed process had been answering orders through the intake. (Matched against the whole
    // output, so a failure prints it: the answers by route, the faults' timing.)
    expect(stdout).toMatch(/answered through intake before the kill: [1-9]/);
    const checks = stdout.split('\n').filter((l) => /\[chaos\] [✓✗]/.test(l));
    expect(checks).toHaveLength(7);
    expect(checks.filter((l) => l.includes('✗'))).toEqual([]);
    // Orders were answered through the faults, not just sent ("0 answered 200" would hide a dead API).
    const answered = /(\d+) orders sent: (\d+) answered 200/.exec(stdout);
    expect(answered).not.toBeNull();
    expect(Number(answered![2])).toBeGreaterThan(0);
    // On failure, say why: the run's last lines (an error after the checks, say).
    expect({ code, tail: code === 0 ? [] : `${stdout}\n${stderr}`.trim().split('\n').slice(-12) }).toEqual({ code: 0, tail: [] });
  }, 300_000);
});
