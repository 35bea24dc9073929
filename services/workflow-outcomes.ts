import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { Failure, refusalFailure, type Refused } from '../domain/failures';
import { refusalIn } from '../workflows/shared/step-failures';

/**
 * The refusal a workflow failed an Update, or itself, with: our workflows put it in the
 * ApplicationFailure's details (workflows/order-cancellation.ts), and a step refused for good
 * carries it in its ActivityFailure's cause (worker/activity-failures.ts). Undefined otherwise.
 */
export function refusalCarried(cause: unknown): Refused | undefined {
  return refusalIn(cause);
}

/**
 * Maps a failed workflow Update: a refusal carried in the ApplicationFailure's details keeps its
 * code; a validator's refusal is invalid_state_transition; a workflow that has ended can no longer
 * take the change (`ended` says what the client can do instead).
 */
export function updateFailure(err: unknown, ended: string): unknown {
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    const refusal = refusalCarried(err.cause);
    if (refusal) return refusalFailure(refusal);
    return new Failure('invalid_state_transition', err.cause.message);
  }
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ActivityFailure) {
    // A step of the change failed for good: refused (its refusal), or out of retries (nothing was
    // changed: each step is one transaction, and the workflow keeps its state).
    const refusal = refusalCarried(err.cause);
    if (refusal) return refusalFailure(refusal);
    return new Failure('backend_unavailable', 'the change could not be saved and nothing was changed; retry shortly');
  }
  if (err instanceof WorkflowNotFoundError) return new Failure('invalid_state_transition', ended);
  return err;
}

/** What a late answer says: the message, and the facts a client acts on (the resource's id). */
export type Late = { message: string; [k: string]: unknown };

/**
 * Waits for a workflow's answer at most `seconds`. Past that the work goes on server-side (a worker
 * may be restarting); the caller gets backend_unavailable with what it needs to find the result
 * later. The abandoned client call is aborted at the deadline: left alone, the Temporal client
 * keeps long-polling and retrying it, and a retry that fires after the connection closes throws
 * "Channel has been shut down" out of nowhere.
 */
export function withinDeadline<T>(
  temporal: Pick<Client, 'withAbortSignal'>,
  call: () => Promise<T>,
  seconds: number,
  late: Late,
): Promise<T> {
  const { message, ...extra } = late;
  return raceDeadline(temporal, call, seconds, () => new Failure('backend_unavailable', message, extra));
}

/** The two answers past the deadline of an Update: admitted (202) or not even that (503). */
export interface LateUpdate {
  /** The workflow accepted the Update (it is durable and will be applied): accepted_pending. */
  accepted: Late;
  /** No worker admitted it in time: nothing is confirmed (it may still be taken): backend_unavailable. */
  unconfirmed: Late;
}

/**
 * Runs an Update within the one answer deadline, in Temporal's two stages: `start` sends it and
 * resolves once the workflow has accepted it (`waitForStage: ACCEPTED`, the validator passed),
 * then its result is awaited with what is left of the deadline. A refusal (validator or handler)
 * keeps its code (`updateFailure`, with `ended` for a finished workflow); past the deadline the
 * answer says whether the change was accepted (it will be applied: look it up later) or not
 * confirmed at all (look it up, and send it again if it did not happen).
 */
export async function updateWithinDeadline<T>(
  temporal: Pick<Client, 'withAbortSignal'>,
  start: (stage: typeof WorkflowUpdateStage.ACCEPTED) => Promise<WorkflowUpdateHandle<T>>,
  seconds: number,
  late: LateUpdate,
  ended: string,
): Promise<T> {
  let accepted = false;
  const lateFailure = () => {
    const { message, ...extra } = accepted ? late.accepted : late.unconfirmed;
    return new Failure(accepted ? 'accepted_pending' : 'backend_unavailable', message, extra);
  };
  const call = async () => {
    const handle = await start(WorkflowUpdateStage.ACCEPTED);
    accepted = true;
    return handle.result();
  };
  return raceDeadline(temporal, call, seconds, lateFailure).catch((err) => Promise.reject(updateFailure(err, ended)));
}

/** Races `call` against the deadline; at the deadline the call is aborted and `late()` thrown. */
async function raceDeadline<T>(
  temporal: Pick<Client, 'withAbortSignal'>,
  call: () => Promise<T>,
  seconds: number,
  late: () => Failure,
): Promise<T> {
  const abandon = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(late());
      abandon.abort();
    }, seconds * 1000);
  });
  const work = temporal.withAbortSignal(abandon.signal, call);
  work.catch(() => undefined); // a late failure (or the abort itself) after the deadline is already answered
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
