import { admin, adminJson } from '../../setup/admin';
import { createHarness, type Harness } from '../../setup/harness';
import { deploymentNameFor } from '../../../platform/worker-deployments';

/*
 * `npm run admin -- deploy …` on the suite's stack (docs/worker-versioning.md): the service's
 * worker made its version current at its start (a task queue no worker had polled), a second
 * release's worker on the same task queue (WORKER_BUILD_ID) is left inactive until the operator
 * ramps and promotes it, and the version before reports draining; `always` (the local stack's
 * default) takes over at start. The whole rollout with two
 * versions of the code, their runs and the drained report: test/workflows/worker-versioning.test.ts.
 */
describe('admin deploy', () => {
  let first: Harness;
  let second: Harness | undefined;
  let third: Harness | undefined;
  let cli: (args: string[]) => ReturnType<typeof admin>;
  beforeAll(async () => {
    first = await createHarness({ worker: true });
    cli = (args) => admin(['deploy', ...args], { ...process.env, TEMPORAL_TASK_QUEUE: first.config.TEMPORAL_TASK_QUEUE });
  });
  afterAll(async () => {
    await third?.close();
    await second?.close();
    await first?.close();
  });

  it('shows the starting worker current, ramps and promotes the next release, and reports the old version draining', async () => {
    const one = first.worker!.version.buildId;
    expect(adminJson(await cli(['status']))).toEqual({
      deployment: deploymentNameFor(first.config.TEMPORAL_TASK_QUEUE),
      current: one,
      ramping: null,
      versions: [{ build_id: one, status: 'current', drainage: null }],
    });

    // The next release's worker joins the same task queue; a deployment with a current version is the operator's to change.
    second = await createHarness({
      worker: true,
      env: { TEMPORAL_TASK_QUEUE: first.config.TEMPORAL_TASK_QUEUE, WORKER_BUILD_ID: 'release-2' },
    });
    expect(adminJson(await cli(['status']))).toMatchObject({ current: one, ramping: null });

    const unknown = await cli(['ramp', 'release-3', '--percent', '10']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no worker of version .*:release-3 has polled Temporal/);
    const tooMuch = await cli(['ramp', 'release-2', '--percent', '101']);
    expect(tooMuch).toMatchObject({ code: 1, stderr: expect.stringContaining('percent must be a whole number from 0 to 100') });

    expect(adminJson(await cli(['ramp', 'release-2', '--percent', '25']))).toMatchObject({
      current: one,
      ramping: { build_id: 'release-2', percent: 25 },
    });
    expect(adminJson(await cli(['promote', 'release-2']))).toMatchObject({ current: 'release-2', ramping: null, previous: one });
    expect(adminJson(await cli(['drained', one]))).toMatchObject({ build_id: one, status: 'draining', drained: false });
  });

  it('lets a worker started with WORKER_SET_CURRENT=always make itself current (a restart of the local stack)', async () => {
    const env = { TEMPORAL_TASK_QUEUE: first.config.TEMPORAL_TASK_QUEUE, WORKER_BUILD_ID: 'release-3', WORKER_SET_CURRENT: 'always' };
    third = await createHarness({ worker: true, env });
    expect(adminJson(await cli(['status']))).toMatchObject({ current: 'release-3', ramping: null });
  });
});
