import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../worker/workflow-bundle';

/*
 * Offers live for months, reservations until their end_date: their workflows must replay every
 * history recorded by earlier code, or running ones would fail their next workflow task.
 * - offer-review-local-activity-clock: the clock was the `currentTimeMs` local activity (before the
 *   `workflow-clock` patch): approve, withdraw, resubmit.
 * - offer-review-approved-suspended-resumed, -withdrawn-edited-closed, -publish-at-start-date:
 *   recorded (test/unit/workflows/offer-review.test.ts with RECORD_HISTORIES set) from the workflow
 *   as one closure, before it was split into named steps: reminder, decisions, an ignored
 *   decision, status moves, publication deferred and due, edits, closing at end_date.
 * - offer-review-vouchers-expiry: recorded (test/unit/workflows/offer-review-expiry.test.ts) with the
 *   'close-at-vouchers-expiry' patch: the expiry timer moved by edits, the expiry recorded.
 * - offer-review-timeline-*, offer-review-edit-refused and reservation-window-*: recorded (the unit
 *   tests with RECORD_HISTORIES set) before the bounded step policy and the 'step-failures-settle'
 *   patch (issue 19): the same scenarios with the review timeline, an edit and a reservation change
 *   whose step was refused for good, holds, refusals, changes, cancellation and expiry.
 * - order-cancellation-*: recorded (test/unit/workflows/order-cancellation.test.ts with
 *   RECORD_HISTORIES set) from the code without version branches (issue 32): a cancellation, a refusal.
 * - *-settled-*: recorded with the patch taken (a publication, a change and a cancellation, each
 *   failed for good), so later code keeps replaying the patched path too.
 * - order-intake-continued-as-new: recorded (test/unit/workflows/order-intake.test.ts) from the
 *   intake with its one Update, `placeOrders` (issue 32): one run with a refusal answered, an order
 *   placed, continued as new.
 */
const HISTORIES = path.join(__dirname, 'histories');

// Today's workflows, bundled once (the cached bundle npm start uses).
let codePath: string;
beforeAll(async () => {
  codePath = (await workflowBundle(path.join(__dirname, '..', '..', 'workflows', 'index.ts'))).path;
}, 60_000);

it.each(fs.readdirSync(HISTORIES).filter((f) => f.endsWith('.json')))(
  'replays %s',
  async (file) => {
    const recorded = JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8'));
    const history = temporal.api.history.v1.History.fromObject(recorded);
    await Worker.runReplayHistory(
      { workflowBundle: { codePath } },
      history,
      recorded.events[0].workflowExecutionStartedEventAttributes.workflowId,
    );
  },
  60_000,
);
