import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';

/*
 * The review workflow reads the clock with Date.now() behind the `workflow-clock` patch. A history
 * recorded before (the clock was the `currentTimeMs` local activity: approve, withdraw, resubmit)
 * must still replay on today's code, or running offers would fail their next workflow task.
 */
it('replays a history recorded with the local-activity clock', async () => {
  const recorded = JSON.parse(fs.readFileSync(path.join(__dirname, 'histories', 'offer-review-local-activity-clock.json'), 'utf8'));
  const history = temporal.api.history.v1.History.fromObject(recorded);
  await Worker.runReplayHistory(
    { workflowsPath: path.join(__dirname, '..', '..', 'workflows', 'index.ts') },
    history,
    recorded.events[0].workflowExecutionStartedEventAttributes.workflowId,
  );
}, 60_000);
