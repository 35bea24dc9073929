/**
 * Runs a workflow's handler work one piece at a time, in arrival order, on the main loop: two
 * updates or signals never interleave their activities, so each sees the state the previous one left.
 */
export class WorkQueue {
  private readonly jobs: Array<() => Promise<void>> = [];

  /** Queues `job`; the promise settles with the job's own result once the main loop has run it. */
  run<T>(job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push(() => job().then(resolve, reject));
    });
  }

  hasWork(): boolean {
    return this.jobs.length > 0;
  }

  async drain(): Promise<void> {
    while (this.jobs.length) await this.jobs.shift()!();
  }
}
