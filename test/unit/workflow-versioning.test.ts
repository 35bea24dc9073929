import * as workflows from '../../workflows';
import { LONG_LIVED, PINNED_RUN } from '../../workflows/shared/versioning';

/*
 * Every workflow type declares how its runs move between worker versions
 * (workflows/shared/versioning.ts, docs/worker-versioning.md): one left undeclared would be pinned
 * by the worker's default, which for a long-lived type would hold an old version for months.
 */
const EXPECTED: Record<keyof typeof workflows, typeof PINNED_RUN> = {
  offerReviewWorkflow: LONG_LIVED,
  reservationWindowWorkflow: LONG_LIVED,
  orderIntakeWorkflow: LONG_LIVED,
  callbackDeliveryWorkflow: LONG_LIVED,
  callbackDispatcherWorkflow: LONG_LIVED,
  orderCancellationWorkflow: PINNED_RUN,
  monthlyStatementsWorkflow: PINNED_RUN,
  idempotencyKeyPruningWorkflow: PINNED_RUN,
  dataPruningWorkflow: PINNED_RUN,
  voucherImportWorkflow: PINNED_RUN,
  voucherExportWorkflow: PINNED_RUN,
  offerImportWorkflow: PINNED_RUN,
};

it.each(Object.entries(workflows))('%s declares its versioning behaviour', (name, fn) => {
  const declared = (fn as { workflowDefinitionOptions?: unknown }).workflowDefinitionOptions;
  expect(declared).toBeDefined();
  expect(declared).toBe(EXPECTED[name as keyof typeof workflows]);
});
