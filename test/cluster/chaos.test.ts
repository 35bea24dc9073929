import { execFile } from 'node:child_process';
import path from 'node:path';

/**
 * The short chaos run on a real Temporal cluster (`npm run chaos -- --short --cluster`): the same load
 * and faults as the stack lane's chaos run, but Temporal is four server processes over mTLS on
 * Postgres, and its fault is the history service (which owns every workflow's state) killed with
 * SIGKILL mid-load and restarted. Every invariant holds.
 */
describe('chaos under load on a real Temporal cluster', () => {
  it('keeps every order invariant through a worker SIGKILL, a history service SIGKILL, a Postgres restart and a SIGKILL of an API+worker process mid-order', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'npm',
        ['run', '--silent', 'chaos', '--', '--short', '--cluster'],
        {
          cwd: path.resolve(__dirname, '..', '..'),
          env: process.env,
          timeout: 400_000,
          maxBuffer: 10 * 1024 * 1024,
        },
        (err, out, errOut) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errOut }),
      ),
    );
    for (const fault of [
      'kill -9 the worker',
      'kill -9 the history service',
      'restart Postgres',
      'kill -9 the API+worker process mid-order',
    ])
      expect(stdout).toContain(`recovered: ${fault}`);
    expect(stdout).toMatch(/answered through intake before the kill: [1-9]/);
    const checks = stdout.split('\n').filter((l) => /\[chaos\] [✓✗]/.test(l));
    expect(checks).toHaveLength(7);
    expect(checks.filter((l) => l.includes('✗'))).toEqual([]);
    const answered = /(\d+) orders sent: (\d+) answered 200/.exec(stdout);
    expect(answered).not.toBeNull();
    expect(Number(answered![2])).toBeGreaterThan(0);
    expect({ code, tail: code === 0 ? [] : `${stdout}\n${stderr}`.trim().split('\n').slice(-12) }).toEqual({ code: 0, tail: [] });
  }, 420_000);
});
