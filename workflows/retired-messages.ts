/*
 * Workflow types an older release ran and this one does not: no worker of this release has their
 * code, so an open run of one never moves again. Named here, once (a contract: lint allows a
 * workflow type's name nowhere else), so that an operator upgrading from an older release can list
 * their open runs (`admin workflows retired`, docs/deployment.md#upgrading-from-a-release-before-issue-32).
 */

/** Each retired type, with what replaced it (what the operator reads beside each open run). */
export const RETIRED_WORKFLOW_TYPES: Readonly<Record<string, string>> = {
  orderFulfilmentWorkflow:
    'one workflow per order, removed in issue 32: orders are placed by orderIntakeWorkflow and cancelled by orderCancellationWorkflow',
};
