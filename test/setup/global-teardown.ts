import { stopStackProcess } from '../../infra/local/stack-process';

/** Stops the test stack and removes its temporary DATA_DIR (unless KEEP_TEST_DATA is set, for a post-mortem). */
export default async function globalTeardown(): Promise<void> {
  const pid = Number(process.env.TEST_STACK_PID);
  if (pid) await stopStackProcess(pid, process.env.KEEP_TEST_DATA ? undefined : process.env.DATA_DIR);
}
