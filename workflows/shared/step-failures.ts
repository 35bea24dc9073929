import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { Refused } from '../../domain/failures';

/**
 * The refusal a failure carries: in an ApplicationFailure's details (a workflow's own refusal), or
 * in the cause of an ActivityFailure (a step the worker's interceptor failed for good, type
 * REFUSED_FAILURE_TYPE). Undefined for any other failure. Used by workflows and services alike.
 */
export function refusalIn(failure: unknown): Refused | undefined {
  const cause = failure instanceof ActivityFailure ? failure.cause : failure;
  if (!(cause instanceof ApplicationFailure)) return undefined;
  const refusal = cause.details?.[0] as Refused | undefined;
  return refusal?.ok === false ? refusal : undefined;
}

/**
 * What a workflow answers for a step that failed for good: its refusal, or (retries spent on a
 * passing fault) backend_unavailable; each step is one transaction, so nothing was changed.
 */
export function stepRefusal(failure: unknown, what: string): Refused {
  return refusalIn(failure) ?? { ok: false, code: 'backend_unavailable', message: `${what} could not be saved; retry shortly` };
}
