import { offerBody } from './offer-fixture';

/*
 * Poisoned requests for the chaos run (issue 19): values a hostile client found to wedge the
 * service before — a year Postgres refuses in an offer's dates, in an edit of a withdrawn offer, in a
 * reservation and in a change of one. Mixed into the load, each must be answered with a refusal
 * (4xx) or, while a fault strikes, a 503 that says what to do; never a 2xx, a 500 or silence, and
 * never a workflow left retrying. The offer whose edit is poisoned must still move afterwards.
 */

/** A year no offer or reservation can carry (Postgres refuses it; the schemas must too). */
const POISON_DATE = '0000-01-01';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PoisonOutcome {
  name: string;
  status: number | 'no answer';
  ms: number;
}

export type Call = (method: string, url: string, body: unknown) => Promise<Response>;

export interface PoisonTargets {
  /** Submission interface calls, already authenticated. */
  submission: Call;
  /** Distribution interface calls, already authenticated. */
  distribution: Call;
  /** A withdrawn offer with a review workflow behind it: edits are accepted, so a bad one reaches the workflow. */
  withdrawnOfferId: string;
  /** An offer publishers may reserve, and one active reservation on it. */
  offerId: string;
  accountId: string;
  reservationId: string;
  /** A valid offer body to spoil. */
  offer: Record<string, unknown>;
}

/** The poisoned requests, round-robin: the i-th one. */
export function poisonedRequest(i: number, t: PoisonTargets): { name: string; send: () => Promise<Response> } {
  const kinds = [
    {
      name: 'create an offer starting in year 0',
      send: () => t.submission('POST', '/offers', { offer: { ...t.offer, start_date: POISON_DATE } }),
    },
    {
      name: 'edit a withdrawn offer to start in year 0',
      send: () => t.submission('PUT', `/offers/${t.withdrawnOfferId}`, { offer: { start_date: POISON_DATE } }),
    },
    {
      name: 'reserve from year 0',
      send: () =>
        t.distribution('POST', `/offers/${t.offerId}/reservations`, {
          reservation: { account_id: t.accountId, quantity_reserved: 1, start_date: POISON_DATE, end_date: '2099-01-01' },
        }),
    },
    {
      name: 'move a reservation to end in year 0',
      send: () => t.distribution('PUT', `/offers/${t.offerId}/reservations/${t.reservationId}`, { reservation: { end_date: POISON_DATE } }),
    },
  ];
  return kinds[i % kinds.length];
}

/** Sends one and records how it was answered (the body is read so the connection is freed). */
export async function sendPoison(request: { name: string; send: () => Promise<Response> }): Promise<PoisonOutcome> {
  const started = Date.now();
  try {
    const res = await request.send();
    await res.arrayBuffer();
    return { name: request.name, status: res.status, ms: Date.now() - started };
  } catch {
    return { name: request.name, status: 'no answer', ms: Date.now() - started };
  }
}

/** The problems among the answers: anything but a 4xx refusal or a 503 (a fault striking) is one. */
export function poisonProblems(outcomes: PoisonOutcome[]): string[] {
  return outcomes
    .filter((o) => !(typeof o.status === 'number' && ((o.status >= 400 && o.status < 500) || o.status === 503)))
    .map((o) => `${o.name}: ${o.status} after ${o.ms} ms`);
}

/**
 * Resubmits the withdrawn offer for review as a client following docs/errors.md would, for at most
 * a minute: after a 503 (not confirmed) the offer is read, and the change sent again after its
 * Retry-After unless it happened; a 202 (accepted, applied when a worker runs) is followed by
 * reading the offer. Answers 'pending' once the offer is pending, else what was seen.
 */
export async function resubmitWithinMinute(submission: Call, offerId: string): Promise<string> {
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
async function offerStatus(submission: Call, offerId: string): Promise<string> {
  const res = await submission('GET', `/submission/beta/offers/${offerId}`, undefined);
  if (res.status !== 200) {
    await res.arrayBuffer();
    return `read ${res.status}`;
  }
  return ((await res.json()) as { offer: { status: string } }).offer.status;
}

/** An offer created through the API (so a review workflow is behind it) and withdrawn, and the call shapes the poison needs. */
export async function preparePoison(
  submission: Call,
  distribution: Call,
  { offerId, accountId, reservationId }: Pick<PoisonTargets, 'offerId' | 'accountId' | 'reservationId'>,
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
