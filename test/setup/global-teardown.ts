import fs from 'node:fs';

/** Stops the test stack (it stops its servers on SIGTERM) and removes its temporary DATA_DIR. */
export default async function globalTeardown(): Promise<void> {
  const pid = Number(process.env.TEST_STACK_PID);
  if (pid) {
    try {
      process.kill(pid, 'SIGTERM');
      const until = Date.now() + 30_000;
      while (Date.now() < until) {
        process.kill(pid, 0);
        await new Promise((r) => setTimeout(r, 200));
      }
    } catch {
      // gone
    }
  }
  const dir = process.env.DATA_DIR;
  if (dir && dir.includes('offer-marketplace-test-') && !process.env.KEEP_TEST_DATA) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}
