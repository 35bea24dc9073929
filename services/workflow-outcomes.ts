import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Failure, refusalFailure, type Refused } from '../domain/failures';

/**
 * The refusal a workflow failed an Update, or itself, with: our workflows put it in the
 * ApplicationFailure's details (workflows/order-fulfilment.ts). Undefined for any other failure.
 */
export function refusalCarried(cause: unknown): Refused | undefined {
  if (!(cause instanceof ApplicationFailure)) return undefined;
  const refusal = cause.details?.[0] as Refused | undefined;
  return refusal?.ok === false ? refusal : undefined;
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
  if (err instanceof WorkflowNotFoundError) return new Failure('invalid_state_transition', ended);
  return err;
}

/**
 * Waits for a workflow's answer at most `seconds`. Past that the work goes on server-side (a worker
 * may be restarting); the caller gets backend_unavailable with what it needs to find the result
 * later. The abandoned client call is aborted at the deadline: left alone, the Temporal client
 * keeps long-polling and retrying it, and a retry that fires after the connection closes throws
 * "Channel has been shut down" out of nowhere.
 */
export async function withinDeadline<T>(
  temporal: Pick<Client, 'withAbortSignal'>,
  call: () => Promise<T>,
  seconds: number,
  late: { message: string; [k: string]: unknown },
): Promise<T> {
  const { message, ...extra } = late;
  const abandon = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Failure('backend_unavailable', message, extra));
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
