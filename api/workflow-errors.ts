import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Refused } from '../activities/stock';
import { ApiError, type ErrorCode } from './errors';

/** A refusal returned by a record or workflow (stock, state, a bad reference) as the client's error. */
export function refusalError(r: Refused): ApiError {
  const { ok: _ok, status, code, message, ...extra } = r;
  return new ApiError(status, code as ErrorCode, message, extra);
}

/**
 * Maps a failed workflow Update: a refusal carried in the ApplicationFailure's details keeps its
 * status and code; a validator's refusal is 409 invalid_state_transition; a workflow that has
 * ended can no longer take the change (409).
 */
export function updateError(err: unknown, ended: string): unknown {
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
    const refusal = err.cause.details?.[0] as Refused | undefined;
    if (refusal && refusal.ok === false) return refusalError(refusal);
    return new ApiError(409, 'invalid_state_transition', err.cause.message);
  }
  if (err instanceof WorkflowNotFoundError) return new ApiError(409, 'invalid_state_transition', ended);
  return err;
}

/**
 * Waits for a workflow's answer at most `seconds`. Past that the work goes on (a worker may be
 * restarting); the client gets 503 with what it needs to find the result later.
 */
export async function withinDeadline<T>(work: Promise<T>, seconds: number, late: { message: string; [k: string]: unknown }): Promise<T> {
  const { message, ...extra } = late;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError(503, 'backend_unavailable', message, extra)), seconds * 1000);
  });
  work.catch(() => undefined); // a late failure after the deadline is already answered
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
