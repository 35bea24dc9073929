import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { Failure } from '../domain/failures';
import type { Logger } from '../platform/logger';
import { unstorableValue } from '../platform/postgres-errors';
import { activityAttemptStuck } from '../platform/stuck-work-metrics';
import { POLLER_ACTIVITIES, REFUSED_FAILURE_TYPE, STUCK_AFTER_ATTEMPTS } from '../workflows/shared/step-policy';

/**
 * Every activity's failures, sorted once for all of them (issue 19: an edit whose date Postgres
 * refused was retried forever, a stack trace per attempt):
 * - a domain refusal (`Failure`) or a value Postgres refuses (`unstorableValue`) cannot be fixed by
 *   retrying: it fails the step for good, as type REFUSED_FAILURE_TYPE with the refusal in its
 *   details, which workflows and services/workflow-outcomes.ts read back as the same refusal;
 * - anything else stays retryable (the step's policy bounds it). Its first attempt is logged by
 *   the SDK with its stack; later ones are marked benign (logged at debug), and the attempt that
 *   reaches the stuck threshold is logged once, at error, with what is stuck.
 */
export function activityFailureInterceptors(log: Logger, stuckAfter = STUCK_AFTER_ATTEMPTS): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        try {
          return await next(input);
        } catch (err) {
          const { activityType, attempt, workflowExecution } = ctx.info;
          const refusal = POLLER_ACTIVITIES.includes(activityType) ? undefined : err instanceof Failure ? err : unstorableValue(err);
          if (refusal) {
            const refused = refusal.toRefused();
            log.warn(
              { activity: activityType, workflow_id: workflowExecution?.workflowId, refusal: refused },
              'activity refused: not retried',
            );
            throw ApplicationFailure.create({
              message: refused.message,
              type: REFUSED_FAILURE_TYPE,
              nonRetryable: true,
              details: [refused],
            });
          }
          if (err instanceof ApplicationFailure || !(err instanceof Error)) throw err;
          if (attempt >= stuckAfter) activityAttemptStuck(activityType);
          if (attempt === stuckAfter)
            log.error(
              { err, activity: activityType, attempt, workflow_id: workflowExecution?.workflowId },
              'activity still failing: see `npm run admin -- workflows stuck`',
            );
          if (attempt === 1) throw err;
          throw ApplicationFailure.create({
            message: err.message,
            type: err.name,
            category: ApplicationFailureCategory.BENIGN,
          });
        }
      },
    },
  });
}
