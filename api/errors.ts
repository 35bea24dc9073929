/** Every error code the API answers with; docs/errors.md lists them with their HTTP statuses. */
export type ErrorCode =
  | 'malformed_body'
  | 'malformed_request'
  | 'uri_too_long'
  | 'invalid_parameter'
  | 'unauthorized'
  | 'wrong_environment'
  | 'wrong_interface'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'invalid_state_transition'
  | 'duplicate'
  | 'insufficient_stock'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'invalid_field'
  | 'rate_limited'
  | 'backend_unavailable'
  | 'internal_error';

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

  static withDetails(statusCode: number, errors: ErrorDetail[]): ApiError {
    const e = new ApiError(statusCode, errors[0].code, errors[0].message);
    (e as { errors: ErrorDetail[] }).errors = errors;
    return e;
  }
}

export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`);
export const invalidField = (field: string, message: string) => new ApiError(422, 'invalid_field', message, { field });
export const conflict = (code: ErrorCode, message: string, extra: Record<string, unknown> = {}) => new ApiError(409, code, message, extra);
