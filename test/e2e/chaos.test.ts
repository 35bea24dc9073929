import { execFile } from 'node:child_process';
import path from 'node:path';

/** The short chaos run (`npm run chaos -- --short`): faults under load, then every invariant checked. */
describe('chaos under load', () => {
  it('keeps every order invariant through a worker SIGKILL, a Temporal restart and a Postgres restart', async () => {
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        'npm',
        ['run', '--silent', 'chaos', '--', '--short'],
        { cwd: path.resolve(__dirname, '..', '..'), timeout: 280_000, maxBuffer: 10 * 1024 * 1024 },
        (err, out) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: out }),
      ),
    );
    for (const fault of ['kill -9 the worker', 'restart the Temporal server', 'restart Postgres'])
      expect(stdout).toContain(`recovered: ${fault}`);
    const checks = stdout.split('\n').filter((l) => /\[chaos\] [✓✗]/.test(l));
    expect(checks).toHaveLength(5);
    expect(checks.filter((l) => l.includes('✗'))).toEqual([]);
    expect(stdout).toMatch(/(\d+) answered 200/);
    expect(code).toBe(0);
  }, 300_000);
});
