import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive } from '../infra/local/child-process';
import { loadConfig } from '../platform/config';
import { removeDataDir } from '../infra/local/data-dir';
import { freePort } from '../platform/free-port';
import { resolveEndpoints } from '../platform/endpoints';
import { createApiKey } from '../services/api-clients';
import { createDb } from '../store/db';
import { checkInvariants, type Outcome } from './chaos-invariants';
import { approvedOffer, dealInput } from './offer-fixture';

/*
 * The chaos run's whole-stack part (`npm run chaos` runs it after the faults under load):
 * - `npm start` stopped with Ctrl-C twenty times in a row, each stop within 10 s, no server left;
 * - the whole stack (API+worker process, Postgres, Temporal, MinIO) killed with SIGKILL while
 *   orders arrive, restarted from the same DATA_DIR, and the order invariants checked.
 */

const ROOT = path.resolve(__dirname, '..');
// The S3 server's pid file is named after the one EMBEDDED_S3 chose (versitygw by default).
const SERVER_PID_FILES = ['temporal.pid', 'versitygw.pid', 'postgres.pid'];
const STOPS = Number(process.env.CHAOS_STOPS ?? 20);
const STOP_LIMIT_MS = 10_000;
const say = (m: string) => process.stdout.write(`[chaos] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Started {
  child: ChildProcess;
  output: () => string;
  /** The servers' pids (each the leader of its own process group), read once the stack is ready. */
  serverPids: number[];
}

/** `npm start` as a user runs it, in a process group of its own so Ctrl-C reaches it as a terminal sends it. */
async function npmStart(env: NodeJS.ProcessEnv, dataDir: string): Promise<Started> {
  const child = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const until = Date.now() + 300_000;
  while (!out.includes('ready; Ctrl-C stops everything')) {
    if (child.exitCode !== null || Date.now() > until) throw new Error(`npm start did not become ready:\n${out}`);
    await sleep(100);
  }
  const serverPids = SERVER_PID_FILES.map((f) => Number(fs.readFileSync(path.join(dataDir, f), 'utf8').trim()));
  return { child, output: () => out, serverPids };
}

/** Ctrl-C: SIGINT to the whole foreground group; resolves with how long the stop took. */
async function ctrlC(s: Started): Promise<number> {
  const closed = new Promise((r) => s.child.once('close', r));
  const t0 = Date.now();
  process.kill(-s.child.pid!, 'SIGINT');
  await closed;
  return Date.now() - t0;
}

async function stopsInARow(env: NodeJS.ProcessEnv, dataDir: string): Promise<string[]> {
  say(`Ctrl-C ${STOPS} times in a row`);
  const times: number[] = [];
  const problems: string[] = [];
  for (let i = 0; i < STOPS; i++) {
    const s = await npmStart(env, dataDir);
    const ms = await ctrlC(s);
    times.push(ms);
    const left = s.serverPids.filter(alive);
    if (ms > STOP_LIMIT_MS) problems.push(`stop ${i + 1} took ${ms} ms`);
    if (!s.output().includes('stopped')) problems.push(`stop ${i + 1} did not finish its shutdown: ${s.output().slice(-300)}`);
    if (left.length) {
      problems.push(`stop ${i + 1} left pids ${left.join(', ')} running`);
      for (const pid of left) process.kill(-pid, 'SIGKILL');
    }
  }
  times.sort((a, b) => a - b);
  say(`stop times: median ${times[Math.floor(times.length / 2)]} ms, slowest ${times[times.length - 1]} ms`);
  say(`${problems.length ? '✗' : '✓'} ${STOPS} Ctrl-C stops, each within ${STOP_LIMIT_MS / 1000} s, none leaving a server behind`);
  for (const p of problems.slice(0, 5)) say(`  ${p}`);
  return problems.length ? ['Ctrl-C stops'] : [];
}

async function killedMidLoad(env: NodeJS.ProcessEnv, dataDir: string): Promise<string[]> {
  say('SIGKILL the whole stack while orders arrive, then restart it from the same DATA_DIR');
  let stack = await npmStart(env, dataDir);
  const config = loadConfig(env);
  let db = createDb(resolveEndpoints(config).databaseUrl, 2);
  const dist = await createApiKey({ db }, { iface: 'distribution', environment: config.SERVICE_ENVIRONMENT });
  const sub = await createApiKey({ db }, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
  const offers = await Promise.all([0, 1].map(() => approvedOffer(db, sub.clientId, dealInput({ initial_quantity: 100_000 }))));
  await db.destroy();

  const outcomes: Outcome[] = [];
  const inFlight: Promise<void>[] = [];
  const place = (i: number) => {
    const o: Outcome = { orderNumber: `chaos-${i}-${crypto.randomUUID().slice(0, 8)}`, quantity: 1 + (i % 2), status: 'error' };
    outcomes.push(o);
    inFlight.push(
      fetch(`http://127.0.0.1:${env.PORT}/distribution/beta/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': dist.key },
        body: JSON.stringify({
          order: { order_number: o.orderNumber, customer_name: 'Chaos', items: [{ offer_id: offers[i % 2], quantity: o.quantity }] },
        }),
        signal: AbortSignal.timeout(20_000),
      })
        .then(async (res) => {
          o.status = res.status;
          if (res.status !== 200) return void (await res.arrayBuffer());
          const { order } = (await res.json()) as { order: { id: string; vouchers: Array<{ redemption_code: string }> } };
          o.orderId = order.id;
          o.codes = order.vouchers.map((v) => v.redemption_code).sort();
        })
        .catch(() => undefined),
    );
  };
  let i = 0;
  const placeFor = async (ms: number) => {
    for (const until = Date.now() + ms; Date.now() < until; i++) {
      place(i);
      await sleep(150);
    }
  };
  await placeFor(8_000);
  // Every process of the stack at once, as a power cut or the OOM killer would.
  for (const pid of [stack.child.pid!, ...stack.serverPids]) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  say(`killed mid-load after ${i} orders`);
  await Promise.all(inFlight);
  stack = await npmStart(env, dataDir);
  say('restarted');
  await placeFor(5_000);
  await Promise.all(inFlight);
  db = createDb(resolveEndpoints(config).databaseUrl, 2);
  try {
    // Orders the kill interrupted finish from their workflows' history once the worker is back.
    let last = -1;
    for (let n = 0; n < 20; n++) {
      const { count } = (await db
        .selectFrom('vouchers')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow()) as {
        count: number;
      };
      if (Number(count) === last) break;
      last = Number(count);
      await sleep(3000);
    }
    const ok = outcomes.filter((o) => o.status === 200).length;
    say(`${outcomes.length} orders sent: ${ok} answered 200, ${outcomes.length - ok} errors or timeouts`);
    return await checkInvariants(db, outcomes, say);
  } finally {
    await db.destroy();
    await ctrlC(stack);
  }
}

/** Both whole-stack scenarios in a DATA_DIR of their own; returns the names of what broke. */
export async function chaosOfTheWholeStack(): Promise<string[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'offer-marketplace-chaos-stack-'));
  fs.chmodSync(dataDir, 0o755);
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|TEMPORAL_ADDRESS|S3_|TEST_)/.test(k))),
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    EMBEDDED_S3_PORT: String(await freePort()),
    RATE_LIMIT_PER_SECOND: '100000',
    LOG_LEVEL: 'warn',
  };
  try {
    return [...(await stopsInARow(env, dataDir)), ...(await killedMidLoad(env, dataDir))];
  } finally {
    for (const f of SERVER_PID_FILES) {
      const pid = Number(fs.readFileSync(path.join(dataDir, f), { encoding: 'utf8', flag: 'a+' }).trim());
      if (pid > 0 && alive(pid)) process.kill(-pid, 'SIGKILL');
    }
    removeDataDir(dataDir);
  }
}
