import { ApplicationFailure, continueAsNew, proxyActivities, setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { monthNotEnded, previousMonth } from '../domain/statements';
import type { MonthlyStatementsInput, MonthlyStatementsResult } from './monthly-statements-messages';
import { STEP_RETRY } from './shared/step-policy';
import { PINNED_RUN } from './shared/versioning';

// Each client's statement is one idempotent activity (build, store three files, record the row
// and its event), retried boundedly; a client that fails for good fails the run after the others
// are done, and a re-run of the month stores only what is missing.
const { statementClients, storeMonthlyStatement } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: STEP_RETRY,
});

/** Clients read per page; statements stored at once; pages per run before continue-as-new (history stays small). */
const PAGE = 100;
const PARALLEL = 4;
const PAGES_PER_RUN = 10;
/** Failed clients carried to the next run at most (the input stays small; the failure message names the first ten). */
const MAX_FAILED_CARRIED = 100;

/**
 * The monthly statements of one month: every client with activity in it gets its statement stored
 * (docs/statements.md). Pages through the clients by id; after PAGES_PER_RUN pages it continues as
 * new, carrying where it was, what it counted and which clients failed.
 */
export async function monthlyStatementsWorkflow(input: MonthlyStatementsInput): Promise<MonthlyStatementsResult> {
  // A scheduled start carries no month: the month before the run's start, in UTC.
  const month = input.month ?? previousMonth(workflowInfo().startTime);
  // A month stored before it ends would stay short for good (a re-run stores only what is missing).
  // Date is the workflow's clock, fixed per task, so a replay decides the same.
  const notEnded = monthNotEnded(month, new Date());
  if (notEnded) throw ApplicationFailure.create({ message: notEnded, type: 'MonthNotEnded', nonRetryable: true });
  const done: MonthlyStatementsResult = input.done ?? { month, clients: 0, stored: 0 };
  // Carried across continue-as-new, so a client failing early does not stop the clients after it.
  // The ids are capped (the input stays small); the count is not, so the failure message is exact.
  const failed: string[] = [...(input.failed ?? [])];
  let failedCount = input.failedCount ?? failed.length;
  let after = input.after ?? '';
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const clients = await statementClients({ month, after, limit: PAGE });
    for (let i = 0; i < clients.length; i += PARALLEL) {
      const batch = clients.slice(i, i + PARALLEL);
      const results = await Promise.allSettled(
        batch.map((c) => storeMonthlyStatement({ month, clientId: c.client_id, iface: c.interface })),
      );
      results.forEach((r, k) => {
        if (r.status === 'rejected') {
          failed.push(batch[k].client_id);
          failedCount++;
        } else if (r.value.stored) done.stored++;
      });
    }
    done.clients += clients.length;
    if (clients.length) after = clients[clients.length - 1].client_id;
    if (clients.length < PAGE) return finish(done, failed, failedCount);
  }
  return continueAsNew<typeof monthlyStatementsWorkflow>({
    month,
    after,
    done,
    failed: failed.slice(0, MAX_FAILED_CARRIED),
    failedCount,
  });
}
setWorkflowOptions(PINNED_RUN, monthlyStatementsWorkflow);

function finish(done: MonthlyStatementsResult, failed: string[], failedCount: number): MonthlyStatementsResult {
  if (failedCount) throw failure(done.month, failed, failedCount);
  return done;
}

const failure = (month: string, clients: string[], count: number) =>
  ApplicationFailure.create({
    message: `the ${month} statements of ${count} client(s) failed (${clients.slice(0, 10).join(', ')}${count > 10 ? ', …' : ''}); run the month again once the cause is fixed`,
    type: 'MonthlyStatementsFailed',
    nonRetryable: true,
  });
