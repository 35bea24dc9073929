import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { orderKey } from '../../domain/orders';
import { loadConfig } from '../../platform/config';
import { createLogger } from '../../platform/logger';
import { deploymentNameFor, type DeploymentVersion } from '../../platform/worker-deployments';
import { sendOrdersToIntake } from '../../services/order-intake';
import { promoteVersion, rampVersion, versionDrainage } from '../../services/worker-deployments';
import { applySetCurrentPolicy, buildIdOfBundle } from '../../worker/versioning';
import { workflowBundle } from '../../worker/workflow-bundle';
import {
  IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE,
  IDEMPOTENCY_PRUNE_BATCH,
  type IdempotencyKeyPruningInput,
  type IdempotencyKeyPruningResult,
} from '../../workflows/idempotency-key-pruning-messages';
import type { IntakeOrder, PlacedAnswer, PlaceOrderBatch } from '../../workflows/order-intake-messages';
import { intakeBatchUpdateId, orderIntakeWorkflowId } from '../../workflows/shared/ids';
import { eventually } from '../setup/eventually';
import { ActivityCalls, recordHistory, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';
import { GATHER_PATCH } from './fixtures/worker-v2/order-intake';

/*
 * A release of workflow code rolled out on one Temporal server, as docs/worker-versioning.md tells
 * an operator to: version 1 is today's workflows, version 2 the next release's
 * (test/workflows/fixtures/worker-v2: a pinned workflow changed so that no version-1 history
 * replays, and a long-lived one changed behind `patched()`). Runs started on 1 finish without a
 * non-determinism error (the pinned one on 1, the long-lived one moved to 2 at its next task), new
 * runs go to 2 once it ramps and once it is current, and version 1 reports drained once its pinned
 * run has ended, so its workers can stop. The histories recorded here replay: the pinned run's
 * with today's code (histories/), the moved run's with version 2's (histories/worker-v2/).
 */
const HISTORIES = path.join(__dirname, 'histories', 'worker-v2');
const V2_ENTRY = path.join(__dirname, 'fixtures', 'worker-v2', 'index.ts');
type Pruning = (i: IdempotencyKeyPruningInput) => Promise<IdempotencyKeyPruningResult>;

describe('worker versioning: version 1 to version 2 on one server', () => {
  let env: WorkflowTestEnv;
  let v1Path: string;
  let v2Path: string;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
    v1Path = process.env.WORKFLOW_TEST_BUNDLE_PATH!;
    v2Path = (await workflowBundle(V2_ENTRY)).path;
  }, 120_000);
  afterAll(() => env?.close());

  const log = createLogger('silent');
  const order = (n: number): IntakeOrder => ({
    orderKey: orderKey('cli_test', `v-${n}`),
    orderId: `ord_v${n}`,
    clientId: 'cli_test',
    orderNumber: `v-${n}`,
    accountId: null,
    applicationId: null,
    customerName: 'Ada Lovelace',
    shippingAddress: null,
    items: [{ offer_id: 'ofr_a', quantity: 1 }],
    requestId: `req-v${n}`,
  });
  const placed = (o: IntakeOrder): PlacedAnswer => ({ ok: true, orderId: o.orderId, issued: 1 });

  /** The build id of every workflow task a run completed, in order, and whether any task failed. */
  async function tasksOf(handle: WorkflowHandle) {
    const events = (await handle.fetchHistory()).events ?? [];
    return {
      builds: events.flatMap((e) => e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId ?? []),
      failed: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
      patches: events.flatMap((e) => (e.markerRecordedEventAttributes?.markerName === 'core_patch' ? [e] : [])).length,
    };
  }
  const buildOf = async (handle: WorkflowHandle) =>
    (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId;
  const replay = async (handle: WorkflowHandle, codePath: string) =>
    Worker.runReplayHistory({ workflowBundle: { codePath } }, temporal.api.history.v1.History.fromObject(await handle.fetchHistory()));

  it('finishes runs started on 1, sends new runs to 2 once it ramps and is current, and reports 1 drained', async () => {
    const taskQueue = `test-${crypto.randomUUID()}`;
    const deps = { temporal: env.client, config: loadConfig({ ...process.env, TEMPORAL_TASK_QUEUE: taskQueue }) };
    const deploymentName = deploymentNameFor(taskQueue);
    const v1: DeploymentVersion = { deploymentName, buildId: buildIdOfBundle(fs.readFileSync(v1Path)) };
    const v2: DeploymentVersion = { deploymentName, buildId: buildIdOfBundle(fs.readFileSync(v2Path)) };
    expect(v2.buildId).not.toBe(v1.buildId);

    // Version 1's first pruning batch waits for the test and comes back full, so the run needs
    // another workflow task after version 2 is current.
    let releaseFirstBatch!: () => void;
    const firstBatch = new Promise<void>((resolve) => (releaseFirstBatch = resolve));
    const on1 = new ActivityCalls();
    const doubles1 = on1.wrap({
      pruneIdempotencyKeys: async ({ limit }: { limit: number }) =>
        on1.of('pruneIdempotencyKeys').length === 1 ? firstBatch.then(() => limit) : 3,
      placeOrderBatch: async ({ orders }: PlaceOrderBatch) => orders.map(placed),
    });
    const on2 = new ActivityCalls();
    const doubles2 = on2.wrap({
      pruneIdempotencyKeys: async () => 0,
      placeOrderBatch: async ({ orders }: PlaceOrderBatch) => orders.map(placed),
    });
    const prune = (name: string) =>
      env.client.workflow.start<Pruning>(IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE, {
        workflowId: `${name}-${taskQueue}`,
        taskQueue,
        args: [{}],
      });
    const shard = { workflowId: orderIntakeWorkflowId(taskQueue, 0), taskQueue, input: { ordersPerRun: 2 } };

    const worker1 = await env.startVersionedWorker({ taskQueue, activities: doubles1, version: v1 });
    let worker2: { stop(): Promise<void> } | undefined;
    try {
      // The service's worker on a deployment with no current version makes itself current (worker/main.ts).
      expect(await applySetCurrentPolicy(env.client, v1, taskQueue, 'if-none', log)).toBe('current');

      // On version 1: a pinned run, held in its first batch, and a long-lived intake run, idle after one order.
      const pinned = await prune('pinned');
      await on1.nth('pruneIdempotencyKeys', 1);
      expect(await sendOrdersToIntake(env.client, shard, [order(1)], intakeBatchUpdateId('v1'))).toEqual([placed(order(1))]);
      const intakeRun = env.client.workflow.getHandle(
        shard.workflowId,
        (await env.client.workflow.getHandle(shard.workflowId).describe()).runId,
      );

      // Version 2's workers start beside version 1's; a starting worker waits until Temporal knows its
      // version and leaves a current version alone.
      worker2 = await env.startVersionedWorker({ taskQueue, activities: doubles2, version: v2, codePath: v2Path });
      expect(await applySetCurrentPolicy(env.client, v2, taskQueue, 'if-none', log)).toBe('not-current');
      // Ramped to 100 %: a new run goes to 2 while 1 stays current.
      expect(await rampVersion(deps, { buildId: v2.buildId, percent: 100 })).toMatchObject({
        current: v1.buildId,
        ramping: { build_id: v2.buildId, percent: 100 },
      });
      const ramped = await prune('ramped');
      expect(await ramped.result()).toEqual({ deleted: 0 });
      expect(await buildOf(ramped)).toBe(v2.buildId);

      // Current: new runs go to 2; version 1 drains while its pinned run is open.
      expect(await promoteVersion(deps, v2.buildId)).toMatchObject({ current: v2.buildId, ramping: null, previous: v1.buildId });
      const fresh = await prune('fresh');
      expect(await fresh.result()).toEqual({ deleted: 0 });
      expect(await buildOf(fresh)).toBe(v2.buildId);
      expect(on2.of('pruneIdempotencyKeys')).toHaveLength(2);
      expect(await versionDrainage(deps, v1.buildId)).toMatchObject({ status: 'draining', drained: false });

      // The pinned run finishes on version 1, though version 2's code could not replay it.
      releaseFirstBatch();
      expect(await pinned.result()).toEqual({ deleted: IDEMPOTENCY_PRUNE_BATCH + 3 });
      expect(on1.of('pruneIdempotencyKeys')).toHaveLength(2);
      expect(await tasksOf(pinned)).toEqual({ builds: [v1.buildId, v1.buildId, v1.buildId], failed: 0, patches: 0 });
      await expect(replay(pinned, v2Path)).rejects.toBeInstanceOf(DeterminismViolationError);
      await recordHistory(pinned, 'idempotency-key-pruning-pinned-v1');

      // Drained once no pinned run is open: version 1's workers stop.
      await eventually('version 1 drained', async () => (await versionDrainage(deps, v1.buildId)).drained, {
        timeoutMs: 60_000,
        intervalMs: 500,
      });
      await worker1.stop();

      // The intake run started on 1 takes its next order on 2 (its patched branch), and continues as new there.
      expect(await sendOrdersToIntake(env.client, shard, [order(2)], intakeBatchUpdateId('v2'))).toEqual([placed(order(2))]);
      expect(on2.of('placeOrderBatch')).toHaveLength(1);
      await eventually('the intake run continued as new', async () => (await intakeRun.describe()).status.name === 'CONTINUED_AS_NEW');
      const moved = await tasksOf(intakeRun);
      expect(moved).toMatchObject({ failed: 0, patches: 1 });
      expect(new Set(moved.builds)).toEqual(new Set([v1.buildId, v2.buildId]));
      expect(moved.builds.indexOf(v2.buildId)).toBeGreaterThan(moved.builds.lastIndexOf(v1.buildId));
      await expect(replay(intakeRun, v2Path)).resolves.toBeUndefined();
      // Version 1 cannot replay it: once a run took version 2's branch, setting version 1 current again would break it.
      await expect(replay(intakeRun, v1Path)).rejects.toBeInstanceOf(DeterminismViolationError);
      await recordHistory(intakeRun, 'worker-v2/order-intake-v1-then-v2');
    } finally {
      releaseFirstBatch();
      await Promise.all([worker1.stop(), worker2?.stop()]);
    }
  });

  it.each(fs.readdirSync(HISTORIES).filter((f) => f.endsWith('.json')))(
    "replays %s (recorded across the rollout) with version 2's code",
    async (file) => {
      const recorded = JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8'));
      const history = temporal.api.history.v1.History.fromObject(recorded);
      // Recorded past version 2's patch: the history holds its marker (the patch id is inside the marker's payload).
      const patches = history.events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
      expect(
        patches.map((e) => Buffer.from(e.markerRecordedEventAttributes!.details!['patch-data'].payloads![0].data!).toString()),
      ).toEqual([JSON.stringify({ id: GATHER_PATCH, deprecated: false })]);
      await Worker.runReplayHistory({ workflowBundle: { codePath: v2Path } }, history);
    },
  );
});
