import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../platform/free-port';
import { sendReviewDecision, waitForStatusChange } from '../../../services/review';
import { eventually } from '../../setup/eventually';
import { validOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const LIMIT = 3;
// Four processes start at once, each worker bundling its workflows, on a shared 2-core machine.
const STARTUP_MS = 420_000;

/** A child process of this test, its output kept for the failure message. */
interface Proc {
  child: ChildProcess;
  output: () => string;
}

function launch(command: string, args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  return { child, output: () => out };
}

/** Waits until `ready`; fails at once, with its output, if the process exits first. */
async function waitFor(what: string, p: Proc, ready: () => boolean | Promise<boolean>, ms = STARTUP_MS - 20_000): Promise<void> {
  await eventually(
    () => `${what} to be ready:\n${p.output()}`,
    async () => {
      if (p.child.exitCode !== null) throw new Error(`${what} exited (${p.child.exitCode}):\n${p.output()}`);
      return ready();
    },
    { timeoutMs: ms },
  );
}

async function stop(p: Proc): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('close', r));
  p.child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
}

/**
 * The production layout of docs/deployment.md on the suite's stack (its Postgres, Temporal and
 * S3 stand in for the managed ones): two API processes (RUN_WORKER=false) sharing the rate limit
 * through that Postgres, and two worker processes (RUN_API=false) on one task queue.
 */
describe('production layout: two API processes and two workers on one stack, rate limit in Postgres', () => {
  const procs: Proc[] = [];
  const dirs: string[] = [];
  let apis: string[] = [];
  let workers: string[] = [];
  let h: Harness;

  beforeAll(async () => {
    // The suite's stack is in this process's environment (DATABASE_URL, TEMPORAL_ADDRESS, S3_*).
    const common = {
      ...process.env,
      TEMPORAL_TASK_QUEUE: `test-${crypto.randomUUID()}`,
      RATE_LIMIT_PER_SECOND: String(LIMIT),
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
    };
    const startProcess = async (role: 'api' | 'worker') => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `offer-marketplace-test-${role}-`));
      dirs.push(dataDir);
      const port = await freePort();
      const env = {
        ...common,
        DATA_DIR: dataDir,
        PORT: String(port),
        RUN_API: String(role === 'api'),
        RUN_WORKER: String(role === 'worker'),
      };
      const p = launch(process.execPath, ['--import', 'tsx', path.join(ROOT, 'main', 'start.ts')], env);
      procs.push(p);
      return { p, url: `http://127.0.0.1:${port}` };
    };
    const started = [await startProcess('api'), await startProcess('api'), await startProcess('worker'), await startProcess('worker')];
    for (const [i, { p }] of started.entries()) await waitFor(`process ${i}`, p, () => p.output().includes('ready; Ctrl-C'));
    apis = started.slice(0, 2).map((s) => s.url);
    workers = started.slice(2).map((s) => s.url);
    for (const [i, { p }] of started.entries()) {
      expect([i, p.output().includes('api: http')]).toEqual([i, i < 2]);
      expect([i, p.output().includes('worker: running')]).toEqual([i, i >= 2]);
    }
    // For keys, the operator's approval and the checks: the same database and Temporal.
    h = await createHarness();
  }, STARTUP_MS);

  afterAll(async () => {
    await h?.close();
    for (const p of procs.reverse()) await stop(p);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true, maxRetries: 5 });
  });

  const get = (api: string, key: string) => fetch(`${api}${DIST}/categories`, { headers: { 'x-service-api-key': key } });

  it(`holds one key to ${LIMIT} requests per second across both API processes`, async () => {
    const key = await h.key('distribution');
    const ok: number[] = [];
    const refused: Response[] = [];
    const started = Date.now();
    // Four seconds of steady traffic on one key, alternating between the two processes.
    for (let i = 0; Date.now() - started < 4000; i++) {
      const res = await get(apis[i % 2], key);
      if (res.status === 200) ok.push(i % 2);
      else refused.push(res);
      await new Promise((r) => setTimeout(r, 40));
    }
    const seconds = Math.ceil((Date.now() - started) / 1000);
    // Fixed one-second windows: at most LIMIT in each window the traffic touched. Each process
    // counting alone would let through twice that.
    expect(ok.length).toBeGreaterThanOrEqual(LIMIT);
    expect(ok.length).toBeLessThanOrEqual(LIMIT * (seconds + 1));
    expect(new Set(ok)).toEqual(new Set([0, 1])); // both processes served some
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0].status).toBe(429);
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('refuses guessed keys from one address on both processes with 429 once over the shared budget', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 20; i++) codes.push((await get(apis[i % 2], `om_test_dist_guess${i}`)).status);
    // Together the two processes answered no more than the budget with a (database-checked) 401.
    expect(codes.filter((c) => c === 401).length).toBeLessThanOrEqual(LIMIT * 2);
    expect(codes.filter((c) => c === 429).length).toBeGreaterThanOrEqual(10);
    // This address is refused everything until its window passes: wait for that before the next
    // test (a valid key's requests, paced under its own limit, do not count against the address).
    const key = await h.key('distribution');
    await eventually("this address's rate-limit window to pass", async () => (await get(apis[0], key)).status === 200, {
      intervalMs: 400,
    });
  });

  it('takes orders through both API processes, fulfilled by the two workers: no voucher twice, stock exact', async () => {
    const sub = await h.key('submission');
    const created = await fetch(`${apis[0]}${SUB}/offers`, {
      method: 'POST',
      headers: { 'x-service-api-key': sub, 'content-type': 'application/json' },
      body: JSON.stringify({ offer: validOffer({ title: 'Two-by-two dinner', initial_quantity: 10 }) }),
    });
    expect(created.status).toBe(200);
    const offerId = ((await created.json()) as { offer: { id: string } }).offer.id;
    await sendReviewDecision(h.services, offerId, 'approve', { reviewer: 'layout test' });
    expect(await waitForStatusChange(h.services, offerId, 'pending')).toBe('approved');

    // Fourteen publishers (one key each, so the per-key limit stays out of it) order one unit of
    // ten at once, half through each process.
    const keys = await Promise.all(Array.from({ length: 14 }, () => h.key('distribution')));
    const answers = await Promise.all(
      keys.map(async (key, i) => {
        const res = await fetch(`${apis[i % 2]}${DIST}/orders`, {
          method: 'POST',
          headers: { 'x-service-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({
            order: { order_number: `layout-${i}`, customer_name: 'Ada Lovelace', items: [{ offer_id: offerId, quantity: 1 }] },
          }),
        });
        return {
          status: res.status,
          body: (await res.json()) as { order?: { vouchers: Array<{ redemption_code: string }> }; errors?: Array<{ code: string }> },
        };
      }),
    );
    const placed = answers.filter((a) => a.status === 200);
    expect(placed).toHaveLength(10);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.errors?.[0].code).toBe('insufficient_stock');
    const codes = placed.flatMap((a) => a.body.order!.vouchers.map((v) => v.redemption_code));
    expect(new Set(codes).size).toBe(10);

    const vouchers = await h.services.db.selectFrom('vouchers').select(['redemption_code']).where('offer_id', '=', offerId).execute();
    expect(vouchers).toHaveLength(10);
    expect(new Set(vouchers.map((v) => v.redemption_code))).toEqual(new Set(codes));
    const offer = await h.services.db
      .selectFrom('offers')
      .select(['quantity_in_stock'])
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow();
    expect(offer.quantity_in_stock).toBe(0);

    // The worker processes count what they placed, and serve it to a scraper (no API routes there).
    const counted = async (name: string) => {
      let sum = 0;
      for (const w of workers) {
        const res = await fetch(`${w}/metrics`);
        expect(res.status).toBe(200);
        const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
        sum += Number(line?.split(' ')[1] ?? 0);
      }
      return sum;
    };
    expect(await counted('orders_placed_total')).toBe(10);
    expect(await counted('vouchers_issued_total')).toBe(10);
    expect((await fetch(`${workers[0]}${DIST}/categories`, { headers: { 'x-service-api-key': keys[0] } })).status).toBe(404);
  });
});
