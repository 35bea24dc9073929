import { Failure, type FailureCode } from '../domain/failures';

/** Every error code the API answers with; docs/errors.md lists them with their HTTP statuses. */
export type ErrorCode =
  | FailureCode
  | 'malformed_request'
  | 'request_timeout'
  | 'headers_too_large'
  | 'uri_too_long'
  | 'invalid_parameter'
  | 'unknown_field'
  | 'unauthorized'
  | 'api_key_expired'
  | 'wrong_environment'
  | 'wrong_interface'
  | 'method_not_allowed'
  | 'rate_limited'
  | 'idempotency_key_in_progress'
  | 'idempotency_key_secret_shown'
  | 'internal_error';

/** The HTTP status of each refusal the services, the store and the workflows speak of. */
export const FAILURE_STATUS: Readonly<Record<FailureCode, number>> = {
  malformed_body: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  duplicate: 409,
  insufficient_stock: 409,
  customer_limit_reached: 409,
  outside_valid_days: 409,
  vouchers_expired: 409,
  insufficient_balance: 409,
  already_rolled_back: 409,
  rollback_window_closed: 409,
  attachment_in_use: 409,
  idempotency_key_reused: 422,
  invalid_state_transition: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_field: 422,
  // A change-feed cursor or `since` past the feed's retention; also the retired User endpoints.
  gone: 410,
  backend_unavailable: 503,
  // Accepted, still applying: not an error (the error handler answers it as such, with Retry-After).
  accepted_pending: 202,
};

export interface ErrorDetail {
  code: ErrorCode;
  message: string;
  field?: string;
  /** Extra facts a client can act on, e.g. the existing order's id on a duplicate order_number. */
  [extra: string]: unknown;
}

/** A failure the client can act on: thrown anywhere, turned into the error envelope in one place. */
export class ApiError extends Error {
  readonly errors: ErrorDetail[];
  constructor(
    readonly statusCode: number,
    code: ErrorCode,
    message: string,
    extra: { field?: string; [k: string]: unknown } = {},
  ) {
    super(message);
    this.errors = [{ code, message, ...extra }];
  }

  /** An answer of several details, bounded (boundedDetails): a hostile body's million faults make a short answer. */
  static withDetails(statusCode: number, errors: ErrorDetail[]): ApiError {
    const e = new ApiError(statusCode, errors[0].code, errors[0].message);
    (e as { errors: ErrorDetail[] }).errors = boundedDetails(errors);
    return e;
  }
}

/** Details one error answer (or one refused import line) lists at most; the rest are counted (docs/security.md#work-per-request-is-bounded). */
export const MAX_ERROR_DETAILS = 10;
/** Bytes of JSON the listed details take at most (the first one is always listed, its texts clipped). */
export const MAX_ERROR_DETAILS_BYTES = 4096;
/** Characters of a message or a field name kept: a body may name a field of a megabyte. */
const MAX_ERROR_TEXT = 200;

const clip = (s: string) => (s.length > MAX_ERROR_TEXT ? `${s.slice(0, MAX_ERROR_TEXT)}…` : s);

/**
 * The first details within MAX_ERROR_DETAILS and MAX_ERROR_DETAILS_BYTES, texts clipped, then one
 * detail counting the rest: what a client needs to fix the first faults, and never more.
 */
export function boundedDetails(errors: ErrorDetail[]): ErrorDetail[] {
  const kept: ErrorDetail[] = [];
  let bytes = 2;
  for (const d of errors) {
    if (kept.length === MAX_ERROR_DETAILS) break;
    const c: ErrorDetail = { ...d, message: clip(String(d.message)), ...(typeof d.field === 'string' ? { field: clip(d.field) } : {}) };
    const size = Buffer.byteLength(JSON.stringify(c)) + 1;
    if (kept.length > 0 && bytes + size > MAX_ERROR_DETAILS_BYTES) break;
    kept.push(c);
    bytes += size;
  }
  const rest = errors.length - kept.length;
  if (rest > 0) kept.push({ code: errors[kept.length].code, message: `and ${rest} more error(s) like these, not listed` });
  return kept;
}

/** A service's refusal as the API answers it: the same details, under the code's HTTP status. */
export function fromFailure(f: Failure): ApiError {
  return ApiError.withDetails(FAILURE_STATUS[f.code], f.details as ErrorDetail[]);
}

export { conflict, invalidField, notFound } from '../domain/failures';
