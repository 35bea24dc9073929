import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { Failure, refusalFailure } from '../domain/failures';
import { refusalIn } from '../workflows/shared/step-failures';

/**
 * Maps a failed workflow Update: a refusal it carries (`refusalIn`: in the ApplicationFailure's
 * details, put there by our workflows, or in a step's ActivityFailure cause, put there by
 * worker/activity-failures.ts) keeps its code; a validator's refusal is invalid_state_transition;
 * a workflow that has ended can no longer take the change (`ended` says what the client can do
 * instead).
 */
export function updateFailure(err: unknown, ended: string): unknown {
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    const refusal = refusalIn(err.cause);
    if (refusal) return refusalFailure(refusal);
    return new Failure('invalid_state_transition', err.cause.message);
  }
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ActivityFailure) {
    // A step of the change failed for good: refused (its refusal), or out of retries (nothing was
    // changed: each step is one transaction, and the workflow keeps its state).
    const refusal = refusalIn(err.cause);
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

/**
 * The two messages past the deadline of an Update, with the facts both carry (the resource's id):
 * `accepted`, the workflow accepted it (it is durable and will be applied): accepted_pending (202);
 * `unconfirmed`, no worker admitted it in time (it may still be taken): backend_unavailable (503).
 */
export type LateUpdate = { accepted: string; unconfirmed: string; [k: string]: unknown };

/**
 * Runs an Update within the one answer deadline, in Temporal's two stages: `start` sends it and
 * resolves once the workflow has accepted it (`waitForStage: ACCEPTED`, the validator passed),
 * then its result is awaited with what is left of the deadline. A refusal (validator or handler)
 * keeps its code (`updateFailure`, with `ended` for a finished workflow); past the deadline the
 * answer says whether the change was accepted (it will be applied: look it up later) or not
 * confirmed at all (look it up, and send it again if it did not happen).
 */
export async function updateWithinDeadline<T>(
  deps: { temporal: Pick<Client, 'withAbortSignal'>; config: { WORKFLOW_ANSWER_TIMEOUT_SECONDS: number } },
  start: (stage: typeof WorkflowUpdateStage.ACCEPTED) => Promise<WorkflowUpdateHandle<T>>,
  late: LateUpdate,
  ended: string,
): Promise<T> {
  let accepted = false;
  const { accepted: acceptedMessage, unconfirmed, ...extra } = late;
  const lateFailure = () =>
    accepted ? new Failure('accepted_pending', acceptedMessage, extra) : new Failure('backend_unavailable', unconfirmed, extra);
  const call = async () => {
    const handle = await start(WorkflowUpdateStage.ACCEPTED);
    accepted = true;
    return handle.result();
  };
  return raceDeadline(deps.temporal, call, deps.config.WORKFLOW_ANSWER_TIMEOUT_SECONDS, lateFailure).catch((err) =>
    Promise.reject(updateFailure(err, ended)),
  );
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
