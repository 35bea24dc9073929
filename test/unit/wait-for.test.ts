import { waitFor } from '../../platform/wait-for';

// The one wait on what sends no event (platform/wait-for.ts). Fake timers stand in for time, so the
// pauses it takes are read off the clock rather than waited out.
describe('waitFor', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('an answer on the first look returns at once, with no pause', async () => {
    const check = jest.fn(() => 'ready');
    await expect(waitFor('the server', check, { deadlineMs: 5_000 })).resolves.toBe('ready');
    expect(check).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  test('the pause doubles from 50 ms up to 1 s, and the answer is returned', async () => {
    const looks: number[] = [];
    const waiting = waitFor('the version', () => (looks.push(Date.now()), looks.length === 8 && looks.length), { deadlineMs: 60_000 });
    await jest.runAllTimersAsync();
    await expect(waiting).resolves.toBe(8);
    expect(looks.slice(1).map((t, i) => t - looks[i])).toEqual([50, 100, 200, 400, 800, 1_000, 1_000]);
  });

  test('firstMs and maxMs set the pauses (the order intake resends from 5 ms up to 100 ms)', async () => {
    const looks: number[] = [];
    const waiting = waitFor('the intake', () => (looks.push(Date.now()), looks.length === 7 && 'taken'), {
      deadlineMs: 10_000,
      firstMs: 5,
      maxMs: 100,
    });
    await jest.runAllTimersAsync();
    await expect(waiting).resolves.toBe('taken');
    expect(looks.slice(1).map((t, i) => t - looks[i])).toEqual([5, 10, 20, 40, 80, 100]);
  });

  test('at the deadline it throws an error naming what it waited for, the last pause cut to the deadline', async () => {
    const looks: number[] = [];
    const started = Date.now();
    const waiting = expect(
      waitFor('worker version 1.0 to drain', () => (looks.push(Date.now()), false), { deadlineMs: 1_000 }),
    ).rejects.toThrow('gave up waiting for worker version 1.0 to drain after 1 s');
    await jest.runAllTimersAsync();
    await waiting;
    expect(looks.map((t) => t - started)).toEqual([0, 50, 150, 350, 750, 1_000]);
  });

  test("the caller's deadline error replaces the default one", async () => {
    const waiting = expect(
      waitFor('x', () => undefined, { deadlineMs: 100, deadlineError: () => new Error('still draining') }),
    ).rejects.toThrow('still draining');
    await jest.runAllTimersAsync();
    await waiting;
  });

  test('an error from the check ends the wait at once with that error', async () => {
    const check = jest.fn(async () => {
      throw new Error('server exited');
    });
    await expect(waitFor('the server', check, { deadlineMs: 5_000 })).rejects.toThrow('server exited');
    expect(check).toHaveBeenCalledTimes(1);
  });
});
