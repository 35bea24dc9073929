import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../api/app';
import { createApiKey } from '../services/api-clients';
import { loadConfig } from '../platform/config';
import { migrateToLatest } from '../store/migrate';
import { freePort } from '../platform/free-port';
import { createLogger } from '../platform/logger';
import { startEmbeddedObjectStore } from '../infra/local/stack';
import { ensureBucket } from '../platform/object-store';
import { startEmbeddedPostgres, type RunningPostgres } from '../infra/local/postgres';
import { connectServices } from '../main';
import { startTemporalDevServer, type RunningTemporal } from '../infra/local/temporal';
import { KEYWORD_SEARCH_ATTRIBUTES, registerSearchAttributes } from '../worker/search-attributes';
import { checkInvariants, printCheck, type Outcome } from './chaos-invariants';
import { listStuckWorkflows, STUCK_AFTER_ATTEMPTS } from '../services/stuck-workflows';
import { chaosOfTheWholeStack } from './chaos-stack';
import { approvedOffer, dealInput } from './offer-fixture';
import { poisonedRequest, poisonProblems, sendPoison, type PoisonOutcome, type PoisonTargets } from './chaos-poison';
import { offerBody } from './offer-fixture';

/*
 * `npm run chaos` (`-- --short` for the version `npm test` runs): orders arrive at a steady rate
 * while the worker is killed with SIGKILL and restarted, the Temporal server is restarted, and
 * Postgres is restarted; half of them go to a second API that runs with its worker in one process
 * (`npm start`'s layout, where orders start eagerly), which is killed with SIGKILL mid-order and
 * restarted. Then the invariants a buyer relies on are checked and printed one by one.
 * The full run then stops `npm start` with Ctrl-C twenty times and SIGKILLs the whole stack mid-load
 * (chaos-stack.ts).
 */

const SHORT = process.argv.includes('--short');
/** `-- --stack-only`: only the whole-stack part (Ctrl-C stops, SIGKILL of everything); see chaos-stack.ts. */
const STACK_ONLY = process.argv.includes('--stack-only');
const DURATION_MS = SHORT ? 24_000 : 60_000;
const ORDERS_PER_SECOND = 6;
const ROOT = path.resolve(__dirname, '..');
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
    try {
      broken = await run(dataDir, stops);
    } finally {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    }
  }
  if (!SHORT) broken.push(...(await chaosOfTheWholeStack()));
  say(broken.length ? `${broken.length} invariant(s) broken` : 'every invariant holds');
  process.exit(broken.length ? 1 : 0);
}

async function run(dataDir: string, stops: Array<() => Promise<unknown>>): Promise<string[]> {
  const ports = {
    pg: await freePort(),
    temporal: await freePort(),
    ui: await freePort(),
    s3: await freePort(),
    api: await freePort(),
    both: await freePort(),
  };
  const servers: { pg?: RunningPostgres; temporal?: RunningTemporal } = {};
  stops.push(
    async () => servers.pg?.stop(),
    async () => servers.temporal?.stop(),
  );
  const startPostgres = async () => (servers.pg = await startEmbeddedPostgres({ dataDir, port: ports.pg }));
  const startTemporal = async () =>
    (servers.temporal = await startTemporalDevServer({
      dataDir,
      port: ports.temporal,
      uiPort: ports.ui,
      namespace: 'default',
      keywordSearchAttributes: KEYWORD_SEARCH_ATTRIBUTES,
    }));
  const pg = await startPostgres();
  const temporal = await startTemporal();
  // The S3 server `npm start` runs (EMBEDDED_S3: versitygw unless set otherwise).
  const objectStore = await startEmbeddedObjectStore(loadConfig(process.env).EMBEDDED_S3, { dataDir, port: ports.s3 });
  stops.push(objectStore.stop);
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: temporal.address,
    S3_ENDPOINT: objectStore.endpoint,
    S3_ACCESS_KEY: objectStore.accessKey,
    S3_SECRET_KEY: objectStore.secretKey,
    RATE_LIMIT_PER_SECOND: '100000',
    LOG_LEVEL: 'silent',
    WORKFLOW_ANSWER_TIMEOUT_SECONDS: '10',
  };
  const config = loadConfig({ ...process.env, ...env });
  const s3 = {
    endpoint: objectStore.endpoint,
    accessKey: objectStore.accessKey,
    secretKey: objectStore.secretKey,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET,
  };
  const services = await connectServices(
    config,
    { databaseUrl: pg.url, temporalAddress: temporal.address, temporalNamespace: 'default', s3 },
    createLogger('silent'),
  );
  stops.push(() => services.close());
  await migrateToLatest(services.db);
  await ensureBucket(services.store, config.S3_REGION);
  await registerSearchAttributes(temporal.address, 'default');
  const app = await buildApp(services);
  stops.push(() => app.close());
  await app.listen({ port: ports.api, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${ports.api}`;

  // The worker runs as its own process, so it can really be killed.
  let worker: ChildProcess | undefined;
  const startWorkerProcess = () => {
    worker = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'main', 'worker-only.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
  };
  stops.push(async () => worker?.kill('SIGKILL'));
  startWorkerProcess();

  // The API and a worker in one process, as `npm start` runs them (on the same stores and task
  // queue): its orders start eagerly, their first task running in that process. Its own DATA_DIR,
  // so its stack file stays apart from the servers' pid files.
  let both: ChildProcess | undefined;
  let bothOutput = '';
  const bothBase = `http://127.0.0.1:${ports.both}`;
  const startBothProcess = () => {
    const dir = fs.mkdtempSync(path.join(dataDir, 'api-and-worker-'));
    bothOutput = '';
    both = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'main', 'start.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...env, DATA_DIR: dir, HOST: '127.0.0.1', PORT: String(ports.both) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    both.stdout!.on('data', (c) => (bothOutput += c));
    both.stderr!.on('data', (c) => (bothOutput += c));
  };
  const bothReady = async () => {
    for (const until = Date.now() + 240_000; !bothOutput.includes('ready; Ctrl-C stops everything'); await sleep(200))
      if (both?.exitCode !== null || Date.now() > until) throw new Error(`the API+worker process did not start:\n${bothOutput}`);
  };
  /** How this process's orders were answered so far (order_answers_total by `via`, from its /metrics). */
  const bothAnswers = async () => {
    const text = await (await fetch(`${bothBase}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    return Object.fromEntries([...text.matchAll(/^order_answers_total\{via="(\w+)"\} (\d+)/gm)].map((m) => [m[1], Number(m[2])]));
  };
  stops.push(async () => both?.kill('SIGKILL'));
  startBothProcess();

  const sub = await createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
  const dist = await createApiKey(services, { iface: 'distribution', environment: config.SERVICE_ENVIRONMENT, reservations: true });
  const offers = await Promise.all([0, 1, 2].map(() => approvedOffer(services.db, sub.clientId, dealInput({ initial_quantity: 100_000 }))));
  const send =
    (key: string) =>
    (method: string, url: string, body: unknown, at = base) =>
      fetch(`${at}${url}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-service-api-key': key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
  const call = send(dist.key);
  const account = (
    (await (
      await call('POST', '/distribution/beta/accounts', { account: { name: 'Chaos Blog', website_url: 'https://chaos.example' } })
    ).json()) as { account: { id: string } }
  ).account.id;
  await call('PUT', `/distribution/beta/accounts/${account}`, { account: { status: 'active' } });
  const today = new Date().toISOString().slice(0, 10);
  const reserved = await call('POST', `/distribution/beta/offers/${offers[0]}/reservations`, {
    reservation: { account_id: account, quantity_reserved: 50, start_date: today, end_date: '2099-01-01' },
  });
  // The worker process bundles its workflows at start, which on a loaded machine can outlast the
  // 10 s answer deadline: a 503 (error detail) or 202 (accepted, top level) names the reservation,
  // which is then made as soon as it runs.
  let reservedOk = reserved.status === 200;
  const reservedBody = (await reserved.json()) as {
    reservation?: { id: string };
    reservation_id?: string;
    errors?: Array<{ reservation_id?: string }>;
  };
  const reservationId = reservedBody.reservation?.id ?? reservedBody.reservation_id ?? reservedBody.errors?.[0]?.reservation_id;
  for (let i = 0; !reservedOk && [202, 503].includes(reserved.status) && reservationId && i < 120; i++) {
    await sleep(500);
    reservedOk = (await call('GET', `/distribution/beta/offers/${offers[0]}/reservations/${reservationId}`, undefined)).status === 200;
  }
  if (!reservedOk) throw new Error(`could not reserve: ${JSON.stringify(reservedBody)}`);
  const poisonTargets = await preparePoison(send(sub.key), call, offers[0], account, reservationId!);
  await bothReady();

  const outcomes: Outcome[] = [];
  const inFlight: Promise<void>[] = [];
  /** Order i, sent to the API alone (even i) or to the API+worker process (odd i, or `at`). */
  const place = (i: number, at = i % 2 ? bothBase : base) => {
    const o: Outcome = { orderNumber: `chaos-${i}-${crypto.randomUUID().slice(0, 8)}`, quantity: 1 + (i % 2), status: 'error' };
    outcomes.push(o);
    const body = {
      order: {
        order_number: o.orderNumber,
        customer_name: 'Chaos Customer',
        items: [{ offer_id: offers[i % 3], quantity: o.quantity }],
        ...(i % 4 === 0 ? { account_id: account } : {}),
      },
    };
    inFlight.push(
      call('POST', '/distribution/beta/orders', body, at)
        .then(async (res) => {
          o.status = res.status;
          if (res.status === 200) {
            const { order } = (await res.json()) as { order: { id: string; vouchers: Array<{ redemption_code: string }> } };
            o.orderId = order.id;
            o.codes = order.vouchers.map((v) => v.redemption_code).sort();
          } else await res.arrayBuffer();
        })
        .catch(() => undefined),
    );
  };

  const faults: Array<[number, string, () => Promise<void>]> = [
    [
      0.2,
      'kill -9 the worker, restart it 2 s later',
      async () => {
        worker?.kill('SIGKILL');
        await sleep(2000);
        startWorkerProcess();
      },
    ],
    [
      0.45,
      'restart the Temporal server',
      async () => {
        await servers.temporal?.stop();
        await startTemporal();
      },
    ],
    [
      0.7,
      'restart Postgres',
      async () => {
        await servers.pg?.stop();
        await sleep(1000);
        await startPostgres();
      },
    ],
    [
      // After the Postgres restart: the restarted process migrates and claims the database first.
      0.85,
      'kill -9 the API+worker process mid-order, restart it 2 s later',
      async () => {
        const answers = await bothAnswers();
        say(`orders the API+worker process answered so far, by how: ${JSON.stringify(answers)}`);
        // The route of the design in use: the intake workflow's Update, or (per-order) eager start.
        const route = config.ORDER_INTAKE === 'sharded' ? 'intake' : 'eager_notice';
        say(`answered through ${route} before the kill: ${answers[route] ?? 0}`);
        // Orders in the middle of being placed there: started, eagerly running, or committed but not answered.
        for (let k = 0; k < 4; k++) place(1_000_000 + k, bothBase);
        await sleep(25);
        both?.kill('SIGKILL');
        await sleep(2000);
        startBothProcess();
        await bothReady();
      },
    ],
  ];
  say(`placing ${ORDERS_PER_SECOND} orders/s for ${DURATION_MS / 1000} s while faults strike`);
  const started = Date.now();
  const faultRuns = faults.map(([at, name, fault]) =>
    sleep(at * DURATION_MS).then(async () => {
      say(`fault: ${name}`);
      await fault();
      say(`recovered: ${name}`);
    }),
  );
  // Every 2 s a poisoned request joins the load (chaos-poison.ts).
  const poisons: Promise<PoisonOutcome>[] = [];
  for (let i = 0; Date.now() - started < DURATION_MS; i++) {
    place(i);
    if (i % (2 * ORDERS_PER_SECOND) === 0) poisons.push(sendPoison(poisonedRequest(poisons.length, poisonTargets)));
    await sleep(1000 / ORDERS_PER_SECOND);
  }
  await Promise.all(faultRuns);
  await Promise.all(inFlight);
  const ok = outcomes.filter((o) => o.status === 200).length;
  say(`${outcomes.length} orders sent: ${ok} answered 200, ${outcomes.length - ok} errors or timeouts`);

  say('letting unfinished workflows settle…');
  let last = -1;
  for (let i = 0; i < 30; i++) {
    const { n } = await services.db
      .selectFrom('vouchers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (n === last) break;
    last = n;
    await sleep(3000);
  }
  const broken = await checkInvariants(services.db, outcomes, say);
  const poisoned = await Promise.all(poisons);
  say(`${poisoned.length} poisoned requests sent`);
  // The offer whose edit was poisoned is still usable: it can be resubmitted for review. Right after
  // the faults its workflow may wait for a worker (a killed worker's sticky queue times out first), so
  // the resubmission does what docs/errors.md tells a client: a 503 is sent again after Retry-After.
  const resubmitted = await resubmitWithinMinute(send(sub.key), poisonTargets.withdrawnOfferId);
  broken.push(
    ...printCheck(say, 'every poisoned request was refused (4xx) or deferred (503), and the poisoned offer still moves', [
      ...poisonProblems(poisoned),
      ...(resubmitted === 'pending' ? [] : [`resubmit the offer whose edits were poisoned: ${resubmitted}`]),
    ]),
  );
  // What `npm run admin -- workflows stuck` lists: an activity past its stuck attempt, or a workflow past its process's age.
  const { workflows: stuck } = await listStuckWorkflows(services, { attempts: STUCK_AFTER_ATTEMPTS, scanLimit: 10_000 });
  broken.push(
    ...printCheck(
      say,
      'no workflow is stuck',
      stuck.map(
        (w) => `${w.type} ${w.workflow_id}: ${w.reasons.join(', ')} ${w.pending_activity ?? ''} ${w.attempt ?? ''} ${w.last_failure ?? ''}`,
      ),
    ),
  );
  return broken;
}

/**
 * Resubmits the withdrawn offer for review as a client following docs/errors.md would, for at most
 * a minute: after a 503 (not confirmed) the offer is read, and the change sent again after its
 * Retry-After unless it happened; a 202 (accepted, applied when a worker runs) is followed by
 * reading the offer. Answers 'pending' once the offer is pending, else what was seen.
 */
async function resubmitWithinMinute(
  submission: (method: string, url: string, body: unknown) => Promise<Response>,
  offerId: string,
): Promise<string> {
  const deadline = Date.now() + 60_000;
  let seen = 'no answer';
  while (Date.now() < deadline) {
    const res = await submission('PUT', `/submission/beta/offers/${offerId}`, { offer: { status: 'pending' } }).catch(() => null);
    if (!res) return 'no answer'; // within the request's own 15 s: silence is a failure, not a retry
    await res.arrayBuffer();
    seen = String(res.status);
    if (res.status === 200) return 'pending';
    if (res.status === 202) break;
    if (res.status !== 503) return seen;
    await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
    // The 503 says the change could not be confirmed: it may have happened meanwhile, so the offer
    // is read before sending it again (sending it to a pending offer would be a 409).
    if ((await offerStatus(submission, offerId)) === 'pending') return 'pending';
  }
  while (Date.now() < deadline) {
    const status = await offerStatus(submission, offerId);
    if (status === 'pending') return 'pending';
    seen = `202, then ${status}`;
    await sleep(1000);
  }
  return `${seen} after a minute`;
}

/** Polls `ok` every half second until it holds; throws naming `what` after `ms`. */
async function until(ok: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  for (const deadline = Date.now() + ms; !(await ok()); await sleep(500))
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
}

/** The offer's status as its advertiser reads it, or `read <HTTP status>` when the read fails. */
async function offerStatus(
  submission: (method: string, url: string, body: unknown) => Promise<Response>,
  offerId: string,
): Promise<string> {
  const res = await submission('GET', `/submission/beta/offers/${offerId}`, undefined);
  if (res.status !== 200) {
    await res.arrayBuffer();
    return `read ${res.status}`;
  }
  return ((await res.json()) as { offer: { status: string } }).offer.status;
}

/** An offer created through the API (so a review workflow is behind it) and withdrawn, and the call shapes the poison needs. */
async function preparePoison(
  submission: (method: string, url: string, body: unknown) => Promise<Response>,
  distribution: (method: string, url: string, body: unknown) => Promise<Response>,
  offerId: string,
  accountId: string,
  reservationId: string,
): Promise<PoisonTargets> {
  const offer = offerBody();
  const created = await submission('POST', '/submission/beta/offers', { offer });
  if (created.status !== 200) throw new Error(`could not create the offer to poison: ${created.status} ${await created.text()}`);
  const withdrawnOfferId = ((await created.json()) as { offer: { id: string } }).offer.id;
  // The worker process may still be bundling its workflows: a 503 (nothing confirmed) is sent again
  // unless the offer reads withdrawn meanwhile; a 202 (accepted, applied as soon as the worker runs)
  // is waited for. The poison and the resubmission need the offer withdrawn.
  for (let i = 0; ; i++) {
    const res = await submission('PUT', `/submission/beta/offers/${withdrawnOfferId}`, { offer: { status: 'withdrawn' } });
    const body = await res.text();
    if (res.status === 200) break;
    if (res.status === 202) {
      await until(async () => (await offerStatus(submission, withdrawnOfferId)) === 'withdrawn', 60_000, 'the offer to poison withdrawn');
      break;
    }
    if (res.status !== 503 || i >= 60) throw new Error(`could not withdraw the offer to poison: ${res.status} ${body}`);
    await sleep(1000);
    if ((await offerStatus(submission, withdrawnOfferId)) === 'withdrawn') break;
  }
  return {
    submission: (method, url, body) => submission(method, `/submission/beta${url}`, body),
    distribution: (method, url, body) => distribution(method, `/distribution/beta${url}`, body),
    withdrawnOfferId,
    offerId,
    accountId,
    reservationId,
    offer,
  };
}

main().catch((err) => {
  say(`failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(2);
});
