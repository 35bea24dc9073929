/*
 * Poisoned requests for the chaos run (issue 19): values a hostile client found to wedge the
 * service before — a year Postgres refuses in an offer's dates, in an edit of a withdrawn offer, in a
 * reservation and in a change of one. Mixed into the load, each must be answered with a refusal
 * (4xx) or, while a fault strikes, a 503 that says what to do; never a 2xx, a 500 or silence, and
 * never a workflow left retrying.
 */

/** A year no offer or reservation can carry (Postgres refuses it; the schemas must too). */
const POISON_DATE = '0000-01-01';

export interface PoisonOutcome {
  name: string;
  status: number | 'no answer';
  ms: number;
}

type Call = (method: string, url: string, body: unknown) => Promise<Response>;

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
