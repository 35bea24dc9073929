import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workflowBundle } from '../../worker/workflow-bundle';

/*
 * Offers live for months, reservations until their end_date: their workflows must replay every
 * history recorded by earlier code, or running ones would fail their next workflow task.
 * - offer-review-* and reservation-window-*: recorded from today's code (no deployment has run these
 *   workflows yet, so they hold no patches: docs/decisions/0048-version-branches-only-when-needed.md) by the tests with RECORD_HISTORIES set
 *   to this folder: test/workflows/offer-review.test.ts and offer-review-expiry.test.ts
 *   (reminder, decisions, an ignored decision, status moves, publication deferred and due, edits,
 *   closing at end_date, the vouchers' expiry, an edit and a publication refused for good),
 *   test/stack/api/offers.test.ts on the real stack (approve, suspend, resume, withdraw, resubmit), and
 *   test/workflows/reservation-window.test.ts (holds, refusals, changes, cancellation, expiry,
 *   a change and a cancellation refused for good).
 * - offer-review-sla-moved: recorded (test/workflows/offer-review-sla.test.ts) from the code with the
 *   `review-sla-from-store` patch (decision 0078): the SLA moved by signal, overdue once, a new round.
 *   The offer-review histories above are from the release before it: they replay its unpatched side.
 * - order-cancellation-*: recorded (test/workflows/order-cancellation.test.ts with
 *   RECORD_HISTORIES set) from the code without version branches (issue 32): a cancellation, a refusal.
 * - order-intake-continued-as-new: recorded (test/workflows/order-intake.test.ts) from the
 *   intake with its one Update, `placeOrders` (issue 32): one run with a refusal answered, an order
 *   placed, continued as new.
 * - idempotency-key-pruning-pinned-v1: recorded (test/workflows/worker-versioning.test.ts) from a
 *   versioned worker: a pinned run that finished on its version while the next was current.
 *   (histories/worker-v2/ holds a run that moved to the next version's code; that test replays it.)
 */
const HISTORIES = path.join(__dirname, 'histories');

// Today's workflows, bundled once (the cached bundle npm start uses).
let codePath: string;
beforeAll(async () => {
  // Replay workers' state changes are INFO: keep the test output to what went wrong.
  Runtime.install({ logger: new DefaultLogger('WARN') });
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
