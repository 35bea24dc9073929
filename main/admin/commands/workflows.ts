import { Command } from 'commander';
import { listStuckWorkflows, STUCK_AFTER_ATTEMPTS, type StuckWorkflow } from '../../../services/stuck-workflows';
import { listRetiredWorkflowRuns } from '../../../services/retired-workflows';
import { output, wholeNumber, type AdminContext } from '../context';
import { adminIo } from '../io';

/** `workflows …`: operators find stuck work (docs/operations.md, "Stuck workflows") and runs an upgrade would strand. */
export function workflowsCommand(ctx: () => AdminContext): Command {
  const cmd = new Command('workflows').description('running workflows: find stuck ones, and open runs of retired types');
  cmd
    .command('stuck')
    .description('running workflows older than their process allows, or with an activity retrying past --attempts')
    .option('--attempts <n>', 'list a workflow whose pending activity is on an attempt above this', wholeNumber(), STUCK_AFTER_ATTEMPTS)
    .option('--scan-limit <n>', 'look at no more running workflows than this', wholeNumber(), 5000)
    .option('--json', 'print JSON instead of a table', false)
    .action(async (o: { attempts: number; scanLimit: number; json: boolean }) => {
      const c = ctx();
      const listing = await listStuckWorkflows({ db: c.db, temporal: await c.temporal() }, o);
      if (listing.truncated) adminIo().stderr.write(`only the first ${listing.scanned} running workflows were looked at (--scan-limit)\n`);
      if (o.json) return output(listing);
      if (listing.workflows.length === 0) adminIo().stderr.write(`nothing stuck among ${listing.scanned} running workflows\n`);
      else output(table(listing.workflows));
    });
  cmd
    .command('retired')
    .description('open runs of workflow types this release no longer runs (before an upgrade: docs/deployment.md)')
    .option('--limit <n>', 'list no more runs than this', wholeNumber(), 1000)
    .action(async (o: { limit: number }) => {
      const runs = await listRetiredWorkflowRuns({ temporal: await ctx().temporal() }, o.limit);
      if (runs.length === 0) adminIo().stderr.write('no open run of a retired workflow type\n');
      output({ runs });
    });
  return cmd;
}

/** One line per workflow: id, type, age, why, the pending activity, its attempt and last failure. */
function table(rows: StuckWorkflow[]): string {
  const lines = [['WORKFLOW ID', 'TYPE', 'AGE', 'WHY', 'PENDING ACTIVITY', 'ATTEMPT', 'LAST FAILURE']];
  for (const r of rows)
    lines.push([
      r.workflow_id,
      r.type,
      age(r.age_seconds),
      r.reasons.join(','),
      r.pending_activity ?? '-',
      r.attempt === null ? '-' : String(r.attempt),
      (r.last_failure ?? '-').replace(/\s+/g, ' ').slice(0, 120),
    ]);
  const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines.map((l) => l.map((cell, i) => (i < 6 ? cell.padEnd(widths[i]) : cell)).join('  ')).join('\n');
}

function age(seconds: number): string {
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86400)}d`;
}
