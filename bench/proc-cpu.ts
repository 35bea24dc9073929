import fs from 'node:fs';
import { round1, type LoadResult } from './load';

/*
 * CPU time of a process tree from /proc (Linux): what every process of the stack spent during a
 * measured run, so a cost per order can be counted across the API, the worker, Temporal and
 * Postgres. Each process counts its own time plus that of its children it has reaped (cutime,
 * cstime), so a Postgres backend or helper that ends during the run is still counted, once.
 */

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture Node supports

interface ProcCpu {
  pid: number;
  ppid: number;
  comm: string;
  ms: number;
}

function readProc(pid: number): ProcCpu | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // it ended between the listing and the read
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  const f = stat.slice(close + 2).split(' ');
  // After comm: [0] state, [1] ppid, … [11] utime, [12] stime, [13] cutime, [14] cstime.
  const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  return { pid, ppid: Number(f[1]), comm, ms: (ticks * 1000) / TICKS_PER_SECOND };
}

/** Every live process under (and including) `root`, with its CPU milliseconds so far. */
export function cpuSnapshot(root: number): Map<number, ProcCpu> {
  const all = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readProc(Number(d)))
    .filter((p): p is ProcCpu => p !== undefined);
  const children = new Map<number, ProcCpu[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out = new Map<number, ProcCpu>();
  const self = all.find((p) => p.pid === root);
  const stack = self ? [self] : [];
  while (stack.length) {
    const p = stack.pop()!;
    out.set(p.pid, p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/**
 * CPU milliseconds spent between two snapshots, by role: `name(pid, comm)` names each process's
 * role (api, worker, postgres, temporal…). A process that ended is counted through its parent.
 */
export function cpuSpent(before: Map<number, ProcCpu>, after: Map<number, ProcCpu>, name: (p: ProcCpu) => string): Record<string, number> {
  const spent: Record<string, number> = {};
  const pids = new Set([...before.keys(), ...after.keys()]);
  for (const pid of pids) {
    const a = after.get(pid);
    const b = before.get(pid);
    // A process that ended during the run: its whole time moved into its parent's cutime and is
    // counted there, so the part already counted before is taken back here.
    const delta = a ? a.ms - (b?.ms ?? 0) : -b!.ms;
    const role = name((a ?? b)!);
    spent[role] = (spent[role] ?? 0) + delta;
  }
  return spent;
}

/** The set of pids under `root` in a snapshot (e.g. the worker's process and its children). */
export function subtree(snapshot: Map<number, ProcCpu>, root: number): Set<number> {
  const out = new Set<number>([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of snapshot.values()) {
      if (!out.has(p.pid) && out.has(p.ppid)) {
        out.add(p.pid);
        grew = true;
      }
    }
  }
  return out;
}

/** CPU milliseconds per order (or per update), by process, and in all. */
export interface CpuPerOrder {
  orders: number;
  ms_per_order: Record<string, number>;
  total_ms_per_order: number;
}

/**
 * `run` timed with the CPU every process of the stack spent meanwhile (this process with its load
 * generator, the worker under `workerRoot`, Temporal, Postgres), per successful order.
 */
export async function withCpu(
  run: () => Promise<LoadResult>,
  workerRoot?: number,
  /** Processes named by pid (a Temporal cluster's services, all `server` by their command name). */
  roles: Map<number, string> = new Map(),
): Promise<{ result: LoadResult; cpu: CpuPerOrder }> {
  const before = cpuSnapshot(process.pid);
  const result = await run();
  const after = cpuSnapshot(process.pid);
  const worker = workerRoot ? subtree(after, workerRoot) : new Set<number>();
  const byProcess = cpuSpent(before, after, (p) =>
    p.pid === process.pid
      ? 'api_and_load'
      : worker.has(p.pid)
        ? 'worker'
        : /^postgres|^postmaster/.test(p.comm)
          ? 'postgres'
          : (roles.get(p.pid) ?? p.comm),
  );
  const total = Object.values(byProcess).reduce((a, b) => a + b, 0);
  const placed = Math.max(1, result.count - result.errors);
  const cpu = {
    orders: placed,
    ms_per_order: Object.fromEntries(Object.entries(byProcess).map(([k, v]) => [k, round1(v / placed)])),
    total_ms_per_order: round1(total / placed),
  };
  return { result, cpu };
}
