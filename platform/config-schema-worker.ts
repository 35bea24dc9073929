import { z } from 'zod';
import { doc, envBoolean, unset, whole } from './config-values';

/*
 * The settings of the Temporal worker a process runs: whether it runs one, its version in the
 * Worker Deployment, and the order intake's shape; part of the one schema (config-schema.ts), in its order.
 */
export const workerSettings = {
  RUN_WORKER: envBoolean
    .default(true)
    .meta(
      doc(
        'Run a Temporal worker in this process; `false` for an API-only process ([deployment.md](deployment.md)).',
        '`false` on API processes when workers run apart, so each kind scales and deploys on its own.',
      ),
    ),
  // Worker Versioning (docs/worker-versioning.md): each worker runs one version of the task queue's Worker Deployment.
  WORKER_BUILD_ID: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, 'letters, digits and . _ + - only')
    .optional()
    .meta(
      unset(
        'The build id of this worker’s version in the Worker Deployment named after `TEMPORAL_TASK_QUEUE` (e.g. a release tag or commit). ' +
          'Workers with the same workflow code must share it ([worker-versioning.md](worker-versioning.md)).',
        '`<package version>-<12 hex of the workflow bundle’s SHA-256>`: changes exactly when the workflow code does',
        'To name versions after your release tags or commits, so `admin deploy` and the Temporal UI show names you know.',
      ),
    ),
  WORKER_SET_CURRENT: z
    .enum(['if-none', 'always', 'never'])
    .optional()
    .meta(
      unset(
        'Whether a starting worker makes its version the deployment’s current one (where new runs go): `if-none` only while the deployment has ' +
          'none (a first start), `always`, or `never` (an operator ramps and promotes with `admin deploy`).',
        '`always` with the local dev server, else `if-none`',
        '`never` to ramp a new version by hand (`admin deploy`) before it takes new runs; `always` where a new release should take them at once.',
      ),
    ),
  ORDER_INTAKE_SHARDS: whole
    .min(1)
    .max(256)
    .default(4)
    .meta(
      doc(
        "How many order-intake workflows share the orders, by each order's first offer: one offer's orders meet at one workflow " +
          '([order-intake.md](order-intake.md), [decision 0083](decisions/0083-orders-of-an-offer-meet.md)). For orders of different offers, ' +
          'fewer shards make larger Updates, each carrying the orders an API process held for its shard, which costs less CPU per order ' +
          '([decision 0043](decisions/0043-coalescing-on-the-api-side.md); figures in [bench/README.md](../bench/README.md)); a shard places its batches one after the ' +
          'other on one worker, so raise it with the workers. Temporal takes at most 10 Updates in flight per workflow and an API process has one ' +
          'in flight per shard, so at most 10 API processes. Changing it while orders are placed is safe: an order in flight may be answered by ' +
          'its new shard, still placed once (the database decides).',
        'Raise it with the workers when orders wait behind busy intake workflows; lower it to spend less CPU per order at modest volumes.',
      ),
    ),
};
