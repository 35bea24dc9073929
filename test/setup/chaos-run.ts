import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * Runs `npm run chaos -- <args>` (bench/chaos.ts) and checks what a chaos run must show: each fault
 * recovered from, the killed process answering through the intake before its kill, all seven
 * invariants holding, and orders answered through the faults ("0 answered 200" would hide a dead API).
 */
export async function expectChaosRunHolds(args: string[], faults: string[], timeoutMs: number): Promise<void> {
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      'npm',
      ['run', '--silent', 'chaos', '--', ...args],
      { cwd: ROOT, env: process.env, timeout: timeoutMs, maxBuffer: 10 * 1024 * 1024 },
      (err, out, errOut) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errOut }),
    ),
  );
  for (const fault of faults) expect(stdout).toContain(`recovered: ${fault}`);
  // Matched against the whole output, so a failure prints it: the answers by route, the faults' timing.
  expect(stdout).toMatch(/answered through intake before the kill: [1-9]/);
  const checks = stdout.split('\n').filter((l) => /\[chaos\] [✓✗]/.test(l));
  expect(checks).toHaveLength(7);
  expect(checks.filter((l) => l.includes('✗'))).toEqual([]);
  const answered = /(\d+) orders sent: (\d+) answered 200/.exec(stdout);
  expect(answered).not.toBeNull();
  expect(Number(answered![2])).toBeGreaterThan(0);
  // On failure, say why: the run's last lines (an error after the checks, say).
  expect({ code, tail: code === 0 ? [] : `${stdout}\n${stderr}`.trim().split('\n').slice(-12) }).toEqual({ code: 0, tail: [] });
}
