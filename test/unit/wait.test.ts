import { waitFor } from '../../infra/local/wait';

// The local stack's one wait (infra/local/wait.ts): it must see a condition as soon as it holds, give
// up at its deadline, and stop at once when its check fails.
describe('waitFor', () => {
  test('answers true once the check holds, asking again until then', async () => {
    let asked = 0;
    await expect(waitFor(() => ++asked === 3, { timeoutMs: 5_000, everyMs: 1 })).resolves.toBe(true);
    expect(asked).toBe(3);
  });

  test('answers false at its deadline, having asked more than once', async () => {
    let asked = 0;
    const started = Date.now();
    await expect(waitFor(() => (asked++, false), { timeoutMs: 60, everyMs: 10 })).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    expect(asked).toBeGreaterThan(1);
  });

  test('an error from the check ends the wait with that error', async () => {
    const check = async () => {
      throw new Error('server exited');
    };
    await expect(waitFor(check, { timeoutMs: 5_000, everyMs: 1 })).rejects.toThrow('server exited');
  });
});
