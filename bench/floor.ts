import { spawn } from 'node:child_process';
import path from 'node:path';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { say } from './bench-stack';
import { floorWorkflow, pingLocalUpdate, pingUpdate } from './floor-workflow';
import { runLoad, type LoadResult } from './load';
import { withCpu, type CpuPerOrder } from './proc-cpu';

/*
 * The floor of an order: what Temporal and a worker alone cost for one Update-with-Start round trip
 * to a long-running workflow that answers at once (ping), or only runs a local activity that does
 * nothing (pingLocal), from the bench's Temporal client, with no HTTP, API or database on the path
 * (bench/floor-workflow.ts; its worker, bench/floor-worker.ts, runs in a process of its own so
 * its CPU is counted apart).
 */

/** The floor's task queue (bench/floor-worker.ts). */
const FLOOR_TASK_QUEUE = 'bench-floor';
/** Updates at concurrency 1 and at 32, as many as orders at those levels (bench/orders.ts). */
const UPDATES = { c1: 150, c32: 1200 };
/** Workflows the concurrency-32 updates are spread over, as orders over the intake's shards. */
const C32_WORKFLOWS = 16;
/** Updates a workflow takes before the next one starts, as an intake run takes its orders. */
const UPDATES_PER_WORKFLOW = 100;

export interface FloorRun {
  c1: LoadResult;
  cpu_c1: CpuPerOrder;
  c32: LoadResult;
  cpu_c32: CpuPerOrder;
}

export interface FloorWorker {
  pid?: number;
  /** Settles once the worker polls (its workflow bundle built). */
  ready: Promise<void>;
}

/** Starts the floor's worker; started early, its bundling is over before anything is measured. */
export function startFloorWorker(
  temporalAddress: string,
  stops: Array<() => Promise<unknown>>,
  env: Record<string, string> = {},
): FloorWorker {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'floor-worker.ts'), temporalAddress, FLOOR_TASK_QUEUE], {
    // The stack's environment: a cluster's TLS files, which its connection reads (platform/temporal-connection.ts).
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  stops.push(async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`the floor worker exited (${code})`)));
  });
  return { pid: child.pid, ready };
}

/** Both floors, each at concurrency 1 and 32 with the CPU by process (the floor worker's as `worker`). */
export async function benchFloor(
  client: Client,
  worker: FloorWorker,
  /** A cluster's server processes by pid (withCpu's `roles`). */
  roles?: Map<number, string>,
): Promise<{ floor_ping: FloorRun; floor_ping_local: FloorRun }> {
  await worker.ready;
  return {
    floor_ping: await floorOf(client, 'ping', pingUpdate, worker.pid, roles),
    floor_ping_local: await floorOf(client, 'ping_local', pingLocalUpdate, worker.pid, roles),
  };
}

async function floorOf(
  client: Client,
  name: string,
  update: typeof pingUpdate,
  workerPid?: number,
  roles?: Map<number, string>,
): Promise<FloorRun> {
  const once = (tag: string, workflows: number) => async (i: number) => {
    const workflowId = `floor-${name}-${tag}-${i % workflows}-${Math.floor(i / (workflows * UPDATES_PER_WORKFLOW))}`;
    return (await floorPing(client, update, workflowId, i)) === i;
  };
  say(`floor: ${name} updates at concurrency 1 and 32…`);
  await runLoad(20, 1, once('warm', 1));
  const c1 = await withCpu(() => runLoad(UPDATES.c1, 1, once('c1', 1)), workerPid, roles);
  const c32 = await withCpu(() => runLoad(UPDATES.c32, 32, once('c32', C32_WORKFLOWS)), workerPid, roles);
  return { c1: c1.result, cpu_c1: c1.cpu, c32: c32.result, cpu_c32: c32.cpu };
}

/** One Update-with-Start to a floor workflow (started when missing, joined otherwise), answered with `n`. */
function floorPing(client: Client, update: typeof pingUpdate, workflowId: string, n: number): Promise<number> {
  const startWorkflowOperation = new WithStartWorkflowOperation(floorWorkflow, {
    workflowId,
    taskQueue: FLOOR_TASK_QUEUE,
    args: [],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return client.workflow.executeUpdateWithStart(update, { startWorkflowOperation, args: [n] });
}
