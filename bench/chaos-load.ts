import crypto from 'node:crypto';
import { createApiKey } from '../services/api-clients';
import type { Outcome } from './chaos-invariants';
import { poisonedRequest, sendPoison, type Call, type PoisonOutcome, type PoisonTargets } from './chaos-poison';
import type { ChaosStack } from './chaos-servers';
import { approvedOffer, dealInput } from './offer-fixture';

/*
 * The chaos run's load (bench/chaos.ts): orders at a steady rate, half to the API alone and half to
 * the API+worker process, a poisoned request every 2 s, while the faults strike in turn.
 */

const ORDERS_PER_SECOND = 6;
const say = (m: string) => process.stdout.write(`[chaos] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client of each interface, three offers to order from, an active account and its reservation. */
export interface Customers {
  submission: Call;
  /** Distribution calls, to the API in this process unless given another address. */
  distribution: ReturnType<typeof caller>;
  offers: string[];
  accountId: string;
  reservationId: string;
}

/** Calls to the API in this process (or at `at`) with `key`, each given up after 15 s. */
const caller =
  (key: string, base: string) =>
  (method: string, url: string, body: unknown, at = base) =>
    fetch(`${at}${url}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-service-api-key': key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });

export async function prepareCustomers({ services, config, base }: ChaosStack): Promise<Customers> {
  const sub = await createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
  const dist = await createApiKey(services, { iface: 'distribution', environment: config.SERVICE_ENVIRONMENT, reservations: true });
  const offers = await Promise.all([0, 1, 2].map(() => approvedOffer(services.db, sub.clientId, dealInput({ initial_quantity: 100_000 }))));
  const call = caller(dist.key, base);
  const created = await call('POST', '/distribution/beta/accounts', {
    account: { name: 'Chaos Blog', website_url: 'https://chaos.example' },
  });
  const accountId = ((await created.json()) as { account: { id: string } }).account.id;
  await call('PUT', `/distribution/beta/accounts/${accountId}`, { account: { status: 'active' } });
  const reservationId = await reserve(call, offers[0], accountId);
  return { submission: caller(sub.key, base), distribution: call, offers, accountId, reservationId };
}

/**
 * 50 of the offer reserved for the account. The worker process bundles its workflows at start,
 * which on a loaded machine can outlast the 10 s answer deadline: a 503 (error detail) or 202
 * (accepted, top level) names the reservation, which is then made as soon as it runs.
 */
async function reserve(call: Call, offerId: string, accountId: string): Promise<string> {
  const today = new Date().toISOString().slice(0, 10);
  const reserved = await call('POST', `/distribution/beta/offers/${offerId}/reservations`, {
    reservation: { account_id: accountId, quantity_reserved: 50, start_date: today, end_date: '2099-01-01' },
  });
  let reservedOk = reserved.status === 200;
  const body = (await reserved.json()) as {
    reservation?: { id: string };
    reservation_id?: string;
    errors?: Array<{ reservation_id?: string }>;
  };
  const reservationId = body.reservation?.id ?? body.reservation_id ?? body.errors?.[0]?.reservation_id;
  for (let i = 0; !reservedOk && [202, 503].includes(reserved.status) && reservationId && i < 120; i++) {
    await sleep(500);
    reservedOk = (await call('GET', `/distribution/beta/offers/${offerId}/reservations/${reservationId}`, undefined)).status === 200;
  }
  if (!reservedOk || !reservationId) throw new Error(`could not reserve: ${JSON.stringify(body)}`);
  return reservationId;
}

/** Each fault: when it strikes (as a share of the run), what it is, and how. */
function faultsOf(stack: ChaosStack, place: (i: number, at?: string) => void): Array<[number, string, () => Promise<void>]> {
  const killBoth = async () => {
    const answers = await stack.bothAnswers();
    say(`orders the API+worker process answered so far, by how: ${JSON.stringify(answers)}`);
    say(`answered through intake before the kill: ${answers.intake ?? 0}`);
    // Orders in the middle of being placed there: held for their shard, in an Update, or committed but not answered.
    for (let k = 0; k < 4; k++) place(1_000_000 + k, stack.bothBase);
    await sleep(25);
    stack.killBoth();
    await sleep(2000);
    stack.startBoth();
    await stack.bothReady();
  };
  const killWorker = async () => {
    stack.killWorker();
    await sleep(2000);
    stack.startWorker();
  };
  const restartPostgres = async () => {
    await stack.stopPostgres();
    await sleep(1000);
    await stack.startPostgres();
  };
  return [
    [0.2, 'kill -9 the worker, restart it 2 s later', killWorker],
    [0.45, stack.temporalFault.name, stack.temporalFault.run],
    [0.7, 'restart Postgres', restartPostgres],
    // After the Postgres restart: the restarted process migrates and claims the database first.
    [0.85, 'kill -9 the API+worker process mid-order, restart it 2 s later', killBoth],
  ];
}

/**
 * Orders for `durationMs` while the faults strike; answers each order's outcome (once every
 * request in flight has ended) and how each poisoned request was answered.
 */
export async function placeUnderFaults(stack: ChaosStack, customers: Customers, poisonTargets: PoisonTargets, durationMs: number) {
  const outcomes: Outcome[] = [];
  const inFlight: Promise<void>[] = [];
  /** Order i, sent to the API alone (even i) or to the API+worker process (odd i, or `at`). */
  const place = (i: number, at = i % 2 ? stack.bothBase : stack.base) => {
    const o: Outcome = { orderNumber: `chaos-${i}-${crypto.randomUUID().slice(0, 8)}`, quantity: 1 + (i % 2), status: 'error' };
    outcomes.push(o);
    const items = [{ offer_id: customers.offers[i % 3], quantity: o.quantity }];
    const order = {
      order_number: o.orderNumber,
      customer_name: 'Chaos Customer',
      items,
      ...(i % 4 === 0 ? { account_id: customers.accountId } : {}),
    };
    inFlight.push(recordAnswer(customers.distribution('POST', '/distribution/beta/orders', { order }, at), o));
  };
  say(`placing ${ORDERS_PER_SECOND} orders/s for ${durationMs / 1000} s while faults strike`);
  const started = Date.now();
  // In turn: each at its time, but not before the previous one has recovered (a Postgres restart
  // beside a Temporal cluster can outlast the gap, and the API+worker process restarted after it
  // must find the database up).
  let previous: Promise<void> = Promise.resolve();
  const faultRuns = faultsOf(stack, place).map(
    ([at, name, fault]) =>
      (previous = Promise.all([previous, sleep(at * durationMs)]).then(async () => {
        say(`fault: ${name}`);
        await fault();
        say(`recovered: ${name}`);
      })),
  );
  // Every 2 s a poisoned request joins the load (chaos-poison.ts).
  const poisons: Promise<PoisonOutcome>[] = [];
  for (let i = 0; Date.now() - started < durationMs; i++) {
    place(i);
    if (i % (2 * ORDERS_PER_SECOND) === 0) poisons.push(sendPoison(poisonedRequest(poisons.length, poisonTargets)));
    await sleep(1000 / ORDERS_PER_SECOND);
  }
  await Promise.all(faultRuns);
  await Promise.all(inFlight);
  return { outcomes, poisoned: await Promise.all(poisons) };
}

/** Records the answer to an order in `o`: its status, and for a 200 the order's id and voucher codes. */
async function recordAnswer(answer: Promise<Response>, o: Outcome): Promise<void> {
  try {
    const res = await answer;
    o.status = res.status;
    if (res.status !== 200) {
      await res.arrayBuffer();
      return;
    }
    const { order } = (await res.json()) as { order: { id: string; vouchers: Array<{ redemption_code: string }> } };
    o.orderId = order.id;
    o.codes = order.vouchers.map((v) => v.redemption_code).sort();
  } catch {
    // No answer (a timeout, a reset connection): the order stays an 'error', checked as such.
  }
}
