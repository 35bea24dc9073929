import { WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { Failure } from '../../domain/failures';
import { unstorableValue } from '../../platform/postgres-errors';
import { ApiError, boundedDetails, fromFailure, type ErrorCode, type ErrorDetail } from '../errors';

/** 'offer.advertiser.categories.0.id' → 'advertiser.categories[0].id': the field inside the resource. */
function fieldName(context: string | undefined, instancePath: string, rootKeys: string[]): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (context === 'body' && parts.length > 1 && rootKeys.includes(parts[0])) parts.shift();
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

const ROOT_KEYS = ['offer', 'account', 'order', 'comment', 'attachment', 'reservation', 'voucher', 'signup'];

const FASTIFY_CODES: Record<string, [number, ErrorCode]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large'],
  FST_REQ_FILE_TOO_LARGE: [413, 'payload_too_large'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'malformed_body'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'malformed_body'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'malformed_body'],
  FST_INVALID_MULTIPART_CONTENT_TYPE: [415, 'unsupported_media_type'],
};

const BACKEND_DOWN = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P03', '53300']);

/** A request that failed its route's zod schema: 404 for an impossible id, else 422 naming each field. */
function fromValidation(err: FastifyError & { validation: NonNullable<FastifyError['validation']> }): ApiError {
  const context = err.validationContext;
  // An id that cannot exist names nothing: the same 404 as an id that does not exist.
  if (context === 'params') return new ApiError(404, 'not_found', 'not found');
  return ApiError.withDetails(422, validationDetails(context, err.validation));
}

/** Each failed check as an error detail naming its field inside the resource. */
function validationDetails(context: string | undefined, validation: { instancePath: string; message?: string }[]): ErrorDetail[] {
  return validation.map((v) => {
    const field = fieldName(context, v.instancePath, ROOT_KEYS) || undefined;
    return { code: 'invalid_field', message: field ? `${field}: ${v.message}` : String(v.message), ...(field ? { field } : {}) };
  });
}

/** A body's zod issues as the 422 a route answers names them (an offer import's line reports the same). */
export function bodyIssueDetails(issues: readonly { path: PropertyKey[]; message: string }[]): ErrorDetail[] {
  return boundedDetails(
    validationDetails(
      'body',
      issues.map((i) => ({ instancePath: `/${i.path.map(String).join('/')}`, message: i.message })),
    ),
  );
}

/** Temporal refusing a start (already running) or an update (the workflow's own refusal): a 409. */
function fromWorkflow(err: Error): ApiError | undefined {
  if (err instanceof WorkflowExecutionAlreadyStartedError)
    return new ApiError(409, 'duplicate', 'this resource is already being processed');
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause as { message?: string; type?: string } | undefined;
    return new ApiError(409, 'invalid_state_transition', cause?.message ?? err.message);
  }
}

/** Fastify's and the body parsers' refusals of the request itself. */
function fromParsing(err: FastifyError): ApiError | undefined {
  if (err.code && FASTIFY_CODES[err.code]) {
    const [status, code] = FASTIFY_CODES[err.code];
    return new ApiError(status, code, err.message);
  }
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message)))
    return new ApiError(400, 'malformed_body', `malformed JSON: ${err.message}`);
}

/** Postgres refusing a value (the client's to fix), or a backing service out of reach (503, retry). */
function fromBackend(err: FastifyError): ApiError | undefined {
  const unstorable = unstorableValue(err);
  if (unstorable) return fromFailure(unstorable);
  if (BACKEND_DOWN.has(String(err.code)))
    return new ApiError(503, 'backend_unavailable', 'a backing service is unavailable; retry shortly');
}

/** Any other 4xx a plugin raised, under the nearest code of ours. */
function fromClientStatus(err: FastifyError): ApiError | undefined {
  if (!(err.statusCode && err.statusCode >= 400 && err.statusCode < 500)) return undefined;
  const code: ErrorCode =
    err.statusCode === 413 ? 'payload_too_large' : err.statusCode === 415 ? 'unsupported_media_type' : 'malformed_body';
  return new ApiError(err.statusCode, code, err.message);
}

function toApiError(err: FastifyError | Error): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof Failure) return fromFailure(err);
  if (hasZodFastifySchemaValidationErrors(err)) return fromValidation(err);
  const fe = err as FastifyError;
  return (
    fromWorkflow(err) ??
    fromParsing(fe) ??
    fromBackend(fe) ??
    fromClientStatus(fe) ??
    new ApiError(500, 'internal_error', 'internal error; the request id identifies it in our logs')
  );
}

/** How long a client should wait before looking again at a change still applying, or retrying. */
const RETRY_AFTER_SECONDS = '5';

/**
 * A change a workflow accepted but had not applied by the answer deadline (accepted_pending): not
 * an error. `{status:"ACCEPTED", code, message, <the resource's id>, request_id}` with Retry-After:
 * the message says where the result shows (docs/errors.md#answers-past-the-deadline).
 */
function acceptedPending(apiError: ApiError, request: FastifyRequest, reply: FastifyReply) {
  const { code, message, ...facts } = apiError.errors[0];
  request.log.info({ code, message }, 'request accepted, still applying');
  return reply
    .status(202)
    .header('retry-after', RETRY_AFTER_SECONDS)
    .send({ status: 'ACCEPTED', code, message, ...facts, request_id: request.id });
}

/** The one error path: every failure leaves as `{status:'ERROR', errors:[…]}` in the client's format. */
export default fp(async function errorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(err);
    if (apiError.statusCode === 202) return acceptedPending(apiError, request, reply);
    if (apiError.statusCode >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: apiError.errors[0].code, message: apiError.message }, 'request refused');
    if (apiError.statusCode === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
    // Past a workflow's answer deadline nothing is confirmed: look the resource up, then retry.
    if (apiError.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', RETRY_AFTER_SECONDS);
    return reply.status(apiError.statusCode).send({ status: 'ERROR', errors: apiError.errors, request_id: request.id });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({
      status: 'ERROR',
      errors: [{ code: 'not_found', message: `no route ${request.method} ${request.url}` }],
      request_id: request.id,
    }),
  );
});
