import { Command } from 'commander';
import { deploymentStatus, promoteVersion, rampVersion, versionDrainage, waitUntilDrained } from '../../../services/worker-deployments';
import { output, wholeNumber, type AdminContext } from '../context';
import { adminIo } from '../io';

/**
 * `deploy …`: a release of workflow code rolled out as versions of the task queue's Worker
 * Deployment (docs/worker-versioning.md): start the new workers, ramp, promote, wait until the old
 * version has drained, stop its workers.
 */
export function deployCommand(ctx: () => AdminContext): Command {
  const cmd = new Command('deploy').description('roll out a new worker version (Worker Deployment of TEMPORAL_TASK_QUEUE)');
  const deps = async () => ({ temporal: await ctx().temporal(), config: ctx().config });
  cmd
    .command('status')
    .description('the current and ramping versions, and every version whose workers have polled (a new release shows as inactive)')
    .action(async () => output(await deploymentStatus(await deps())));
  cmd
    .command('ramp')
    .description("send a share of new runs (and of auto-upgrade runs' next tasks) to a version whose workers run; 0 ends the ramp")
    .argument('<build-id>')
    .requiredOption('--percent <n>', 'the share, 0 to 100', wholeNumber())
    .action(async (buildId: string, o: { percent: number }) => output(await rampVersion(await deps(), { buildId, percent: o.percent })));
  cmd
    .command('promote')
    .description('make a version current: every new run goes to it; runs pinned to the old version stay there until they end')
    .argument('<build-id>')
    .action(async (buildId: string) => output(await promoteVersion(await deps(), buildId)));
  cmd
    .command('drained')
    .description("whether a version's pinned runs have all ended (then its workers may stop); --wait until they have")
    .argument('<build-id>')
    .option('--wait', 'ask again until drained', false)
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 1)', wholeNumber(), 3600)
    .action(async (buildId: string, o: { wait: boolean; timeout: number }) => {
      const d = await deps();
      if (!o.wait) return output(await versionDrainage(d, buildId));
      const drained = await waitUntilDrained(d, buildId, {
        timeoutMs: o.timeout * 1000,
        onCheck: (s) =>
          !s.drained && adminIo().stderr.write(`${buildId}: ${s.drainage ?? s.status} (checked ${s.checked_at ?? 'not yet'})\n`),
      });
      output(drained);
    });
  return cmd;
}
