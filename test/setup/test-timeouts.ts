import { addEventHandler, getState } from 'jest-circus';

/*
 * jest-light-runner runs a file's tests and hooks as they are, with no time limit of jest's: a hung
 * test would hang the lane. Each test and hook is bounded here as jest bounds it: its own timeout
 * (the third argument), else the file's `jest.setTimeout`, else the suite's (jest.config.mjs's
 * `testTimeout`). A test over its time fails with jest's message; what it started goes on, as in jest.
 */
const SUITE_TIMEOUT_MS = 120_000;
const fileTimeouts = new WeakMap<object, number>();

type Fn = (...args: unknown[]) => unknown;

/** `fn` raced against its time; a callback-style `fn(done)` is awaited through its callback. */
function bounded(fn: Fn, ms: number): () => Promise<unknown> {
  const call = fn.length >= 1 ? () => new Promise((ok, fail) => fn((err?: unknown) => (err ? fail(err) : ok(undefined)))) : fn;
  return () =>
    new Promise((ok, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`Exceeded timeout of ${ms} ms for a test or hook (jest.setTimeout or its third argument raise it).`)),
        ms,
      );
      Promise.resolve()
        .then(call)
        .then(ok, fail)
        .finally(() => clearTimeout(timer));
    });
}

addEventHandler((event, state) => {
  const limit = (own: number | null | undefined) => own ?? fileTimeouts.get(state) ?? SUITE_TIMEOUT_MS;
  const block = state.currentDescribeBlock;
  if (event.name === 'add_test') {
    const test = block.children[block.children.length - 1];
    if (test?.type === 'test') test.fn = bounded(test.fn as Fn, limit(test.timeout));
  } else if (event.name === 'add_hook') {
    const hook = block.hooks[block.hooks.length - 1];
    if (hook) hook.fn = bounded(hook.fn as Fn, limit(hook.timeout));
  }
});

// The runner's `jest` object has no setTimeout: a file's default, for the tests it adds after the call.
Object.assign(globalThis.jest, {
  setTimeout: (ms: number) => {
    fileTimeouts.set(getState(), ms);
    return globalThis.jest;
  },
});
