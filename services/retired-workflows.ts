import type { ServiceDeps } from './deps';
import { RETIRED_WORKFLOW_TYPES } from '../workflows/retired-messages';

/** An open run of a workflow type this release no longer runs. */
export interface RetiredRun {
  workflow_id: string;
  run_id: string;
  type: string;
  started_at: string;
  /** What replaced the type. */
  replaced_by: string;
}

/**
 * The open runs of workflow types this release no longer runs (workflows/retired-messages.ts), for
 * an operator upgrading from an older release (docs/deployment.md): none left means the upgrade
 * strands nothing. At most `limit` runs.
 */
export async function listRetiredWorkflowRuns(deps: Pick<ServiceDeps, 'temporal'>, limit: number): Promise<RetiredRun[]> {
  const types = Object.keys(RETIRED_WORKFLOW_TYPES);
  const query = `ExecutionStatus = 'Running' AND WorkflowType IN (${types.map((t) => `'${t}'`).join(', ')})`;
  const runs: RetiredRun[] = [];
  for await (const wf of deps.temporal.workflow.list({ query })) {
    if (runs.length === limit) break;
    runs.push({
      workflow_id: wf.workflowId,
      run_id: wf.runId,
      type: wf.type,
      started_at: wf.startTime.toISOString(),
      replaced_by: RETIRED_WORKFLOW_TYPES[wf.type],
    });
  }
  return runs;
}
