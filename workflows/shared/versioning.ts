import type { WorkflowDefinitionOptions } from '@temporalio/common';

/*
 * Each workflow type declares how its runs move between versions of the worker deployment
 * (docs/worker-versioning.md; the worker runs as one version, worker/versioning.ts). Declared in
 * the workflow's file with `setWorkflowOptions(<one of these>, workflow)`; a type that declared
 * nothing would be pinned (the worker's default), which test/unit/workflow-versioning.test.ts refuses.
 */

/**
 * Runs of seconds to hours (a cancellation, the scheduled prunings, a month's statements): each run
 * finishes on the code it started on, so a change to them needs no `patched()` branch; the old
 * version's workers stay until its pinned runs have drained (`admin deploy drained`).
 */
export const PINNED_RUN: WorkflowDefinitionOptions = { versioningBehavior: 'PINNED' };

/**
 * Runs that live for days to months, mostly waiting (an offer's review until its end_date, a
 * reservation until its end, an intake shard, a callback lane, the outbox dispatcher): their next
 * task goes to the current version, so an old version drains within the short runs' lifetime
 * instead of an offer's. The price: every change to their code is a `patched()` branch with a replay
 * test of histories recorded from the release before (docs/architecture.md), and rolling back is
 * unsafe once a run has taken a new branch (docs/decisions/0067-worker-versioning.md).
 */
export const LONG_LIVED: WorkflowDefinitionOptions = { versioningBehavior: 'AUTO_UPGRADE' };
