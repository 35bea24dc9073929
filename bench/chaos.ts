import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listStuckWorkflows, STUCK_AFTER_ATTEMPTS } from '../services/stuck-workflows';
import type { Db } from '../store/db';
import { checkInvariants, printCheck } from './chaos-invariants';
import { placeUnderFaults, prepareCustomers } from './chaos-load';
import { poisonProblems, preparePoison, resubmitWithinMinute } from './chaos-poison';
import { startChaosStack } from './chaos-servers';
import { chaosOfTheWholeStack } from './chaos-stack';

/*
 * `npm run chaos` (`-- --short` for the version `npm test` runs): orders arrive at a steady rate
 * while the worker is killed with SIGKILL and restarted, the Temporal server is restarted, and
 * Postgres is restarted; half of them go to a second API that runs with its worker in one process
 * (`npm start`'s layout), which is killed with SIGKILL mid-order and restarted (bench/chaos-load.ts,
 * on the stack of bench/chaos-servers.ts). Then the invariants a buyer relies on are checked and
 * printed one by one. The full run then stops `npm start` with Ctrl-C twenty times and SIGKILLs
 * the whole stack mid-load (chaos-stack.ts).
 */

const SHORT = process.argv.includes('--short');
/** `-- --cluster`: Temporal is a real cluster over mTLS, whose history service is killed instead of the dev server restarted. */
const CLUSTER = process.argv.includes('--cluster');
/** `-- --stack-only`: only the whole-stack part (Ctrl-C stops, SIGKILL of everything); see chaos-stack.ts. */
const STACK_ONLY = process.argv.includes('--stack-only');
const DURATION_MS = SHORT ? 24_000 : 60_000;
const say = (m: string) => process.stdout.write(`[chaos] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  let broken: string[] = [];
  if (!STACK_ONLY) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'offer-marketplace-chaos-'));
    fs.chmodSync(dataDir, 0o755);
    say(`stack in ${dataDir}`);
    // Whatever has started is stopped again, last first, however the run ends (a failed start included).
    const stops: Array<() => Promise<unknown>> = [];
    let failed = false;
    try {
      broken = await run(dataDir, stops);
    } catch (err) {
      // Said before the stops: a client call still retrying when its connection closes can end the process.
      say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
      failed = true;
    } finally {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    }
    if (failed) process.exit(2);
  }
  if (!SHORT && !CLUSTER) broken.push(...(await chaosOfTheWholeStack()));
  say(broken.length ? `${broken.length} invariant(s) broken` : 'every invariant holds');
  process.exit(broken.length ? 1 : 0);
}

async function run(dataDir: string, stops: Array<() => Promise<unknown>>): Promise<string[]> {
  const stack = await startChaosStack(dataDir, stops, CLUSTER);
  const customers = await prepareCustomers(stack);
  const { offers, accountId, reservationId } = customers;
  const poisonTargets = await preparePoison(customers.submission, customers.distribution, { offerId: offers[0], accountId, reservationId });
  await stack.bothReady();
  const { outcomes, poisoned } = await placeUnderFaults(stack, customers, poisonTargets, DURATION_MS);
  const ok = outcomes.filter((o) => o.status === 200).length;
  say(`${outcomes.length} orders sent: ${ok} answered 200, ${outcomes.length - ok} errors or timeouts`);
  await settle(stack.services.db);
  const broken = await checkInvariants(stack.services.db, outcomes, say);
  say(`${poisoned.length} poisoned requests sent`);
  // The offer whose edit was poisoned is still usable: it can be resubmitted for review. Right after
  // the faults its workflow may wait for a worker (a killed worker's sticky queue times out first), so
  // the resubmission does what docs/errors.md tells a client: a 503 is sent again after Retry-After.
  const resubmitted = await resubmitWithinMinute(customers.submission, poisonTargets.withdrawnOfferId);
  broken.push(
    ...printCheck(say, 'every poisoned request was refused (4xx) or deferred (503), and the poisoned offer still moves', [
      ...poisonProblems(poisoned),
      ...(resubmitted === 'pending' ? [] : [`resubmit the offer whose edits were poisoned: ${resubmitted}`]),
    ]),
  );
  // What `npm run admin -- workflows stuck` lists: an activity past its stuck attempt, or a workflow past its process's age.
  const { workflows: stuck } = await listStuckWorkflows(stack.services, { attempts: STUCK_AFTER_ATTEMPTS, scanLimit: 10_000 });
  const stuckLines = stuck.map(
    (w) => `${w.type} ${w.workflow_id}: ${w.reasons.join(', ')} ${w.pending_activity ?? ''} ${w.attempt ?? ''} ${w.last_failure ?? ''}`,
  );
  broken.push(...printCheck(say, 'no workflow is stuck', stuckLines));
  return broken;
}

/** Waits while unfinished workflows still write vouchers (until a 3 s spell without a new one, at most 90 s). */
async function settle(db: Db): Promise<void> {
  say('letting unfinished workflows settle…');
  let last = -1;
  for (let i = 0; i < 30; i++) {
    const { n } = await db
      .selectFrom('vouchers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (n === last) break;
    last = n;
    await sleep(3000);
  }
}

main().catch((err) => {
  say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(2);
});
