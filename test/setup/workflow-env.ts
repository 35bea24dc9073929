import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { createLogger } from '../../platform/logger';
import { deploymentNameFor } from '../../platform/worker-deployments';
import { applySetCurrentPolicy, buildIdOfBundle } from '../../worker/versioning';

const quiet = createLogger('silent');

/*
 * Workflow tests with their activities replaced by test doubles: each file connects to the lane's
 * one Temporal dev server (test/setup/workflows-global-setup.ts starts it, with the workflows'
 * cached bundle), and a worker per test polls a task queue of its own
 * (a random name: files share the server, and a workflow one file leaves running must find no
 * other file's worker).
 */

/** Test doubles of the activities a workflow calls: plain async functions. */
export type ActivityDoubles = Partial<Activities>;

export interface WorkflowTestEnv {
  client: Client;
  /** Runs `test` while a worker with these activities polls the file's task queue, then ends what it left running and stops the worker. */
  withWorker<T>(activities: ActivityDoubles, test: (taskQueue: string) => Promise<T>): Promise<T>;
  /**
   * A worker polling `taskQueue` until `stop()`, running the workflows of `codePath` (default: the
   * lane's bundle of today's code) as one version of a Worker Deployment, as worker/main.ts runs
   * the service's (test/workflows/worker-versioning.test.ts runs two at once).
   */
  startVersionedWorker(opts: {
    taskQueue: string;
    activities: ActivityDoubles;
    version: WorkerDeploymentVersion;
    codePath?: string;
  }): Promise<{ stop(): Promise<void> }>;
  close(): Promise<void>;
}

export async function startWorkflowTestEnv(): Promise<WorkflowTestEnv> {
  const { WORKFLOW_TEST_ADDRESS: address, WORKFLOW_TEST_NAMESPACE: namespace, WORKFLOW_TEST_BUNDLE_PATH: codePath } = process.env;
  if (!address || !codePath) throw new Error('no Temporal test server: run the workflows lane (npm run test:workflows)');
  // Workers' state changes are INFO: keep the test output to what went wrong.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address, namespace });
  // One task queue, so one Worker Deployment version, per test file: Temporal takes about a second
  // to register a new version and make it current, which a queue per test paid each time (the lane
  // 49 → 100 s). Each test still gets a worker of its own with its own doubles; what a test leaves
  // running is ended when it returns, so the next test's worker never runs it.
  const taskQueue = `test-${crypto.randomUUID()}`;
  let version: WorkerDeploymentVersion | undefined;
  return {
    client: env.client,
    async withWorker(activities, test) {
      // Versioned as the service's workers are (worker/main.ts): a worker that is not refuses the
      // workflows, which declare their versioning behaviour. The file's task queue is its own
      // deployment, of which the first worker makes itself the current version (later ones find it so).
      version ??= { deploymentName: deploymentNameFor(taskQueue), buildId: buildIdOfBundle(fs.readFileSync(codePath)) };
      const worker = await Worker.create({
        connection: env.nativeConnection,
        namespace: env.namespace ?? 'default',
        taskQueue,
        workflowBundle: { codePath },
        activities,
        workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' },
        // Workflows on this thread (the SDK's debugMode; decision 0059): a worker thread per test
        // loads the SDK and the bundle anew, about 2 s of CPU each.
        debugMode: true,
      });
      return worker.runUntil(async () => {
        await applySetCurrentPolicy(env.client, version!, taskQueue, 'if-none', quiet);
        try {
          return await test(taskQueue);
        } finally {
          await endLeftovers(env.client, taskQueue);
        }
      });
    },
    async startVersionedWorker(opts) {
      const worker = await Worker.create({
        connection: env.nativeConnection,
        namespace: env.namespace ?? 'default',
        taskQueue: opts.taskQueue,
        workflowBundle: { codePath: opts.codePath ?? codePath },
        activities: opts.activities,
        workerDeploymentOptions: { version: opts.version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' },
        debugMode: true,
      });
      const running = worker.run();
      return {
        async stop() {
          if (worker.getState() === 'RUNNING') worker.shutdown();
          await running;
        },
      };
    },
    close: () => env.teardown(),
  };
}

/** Terminates the runs still open on `taskQueue` (a test's unfinished workflows), so no later test's worker takes them. */
async function endLeftovers(client: Client, taskQueue: string): Promise<void> {
  const open: string[] = [];
  for await (const wf of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` }))
    open.push(wf.workflowId);
  await Promise.all(
    open.map((id) =>
      client.workflow
        .getHandle(id)
        .terminate('the test that started it has ended')
        .catch(() => undefined),
    ),
  );
}

/** While RECORD_HISTORIES names a folder, writes this finished workflow's history there as `<name>.json` (for replay tests). */
export async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  const dir = process.env.RECORD_HISTORIES;
  if (!dir) return;
  const history = temporal.api.history.v1.History.fromObject(await handle.fetchHistory());
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(history.toJSON()));
}

/**
 * Records every call of the doubles it wraps, and lets a test wait for the nth call of one
 * activity (resolved when it comes: no polling).
 */
export class ActivityCalls {
  readonly calls: Array<{ name: keyof Activities; arg: unknown; at: number }> = [];
  private waiters: Array<{ name: keyof Activities; n: number; resolve: (arg: unknown) => void }> = [];

  /** Wraps each double so that its calls are recorded (with their first argument) before it runs. */
  wrap<T extends ActivityDoubles>(doubles: T): T {
    const wrapped: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const [name, fn] of Object.entries(doubles) as Array<[keyof Activities, (...args: unknown[]) => Promise<unknown>]>) {
      wrapped[name] = async (...args) => {
        this.calls.push({ name, arg: args[0], at: Date.now() });
        for (const w of this.waiters.filter((w) => w.name === name && this.of(name).length === w.n)) w.resolve(args[0]);
        return fn(...args);
      };
    }
    return wrapped as T;
  }

  /** The first arguments of the calls of `name`, in order. */
  of(name: keyof Activities): unknown[] {
    return this.calls.filter((c) => c.name === name).map((c) => c.arg);
  }

  /** The nth call's (1-based) first argument, now or once it is made. */
  nth(name: keyof Activities, n = 1, timeoutMs = 20_000): Promise<unknown> {
    const made = this.of(name);
    if (made.length >= n) return Promise.resolve(made[n - 1]);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} was called ${this.of(name).length} time(s), not ${n}`)), timeoutMs);
      this.waiters.push({ name, n, resolve: (arg) => (clearTimeout(timer), resolve(arg)) });
    });
  }
}
