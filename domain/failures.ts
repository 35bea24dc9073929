/*
 * Why a request cannot be done, in the service's own words: a code, a message for people, and the
 * facts a client can act on (the field at fault, the units available, the existing order's id).
 * No HTTP here: api/errors.ts maps each code to its status, the admin CLI prints the message, and
 * a workflow carries a refusal in its failure's details.
 */

/** Every code a service, a store function or a workflow may refuse with; docs/errors.md lists them. */
export type FailureCode =
  | 'not_found'
  | 'invalid_field'
  | 'invalid_state_transition'
  | 'conflict'
  | 'duplicate'
  | 'insufficient_stock'
  /** The customer already holds (or would hold) more of the offer than its restrictions.limit_per_customer. */
  | 'customer_limit_reached'
  /** A redemption on a weekday (UTC) the offer's restrictions.valid_days does not name. */
  | 'outside_valid_days'
  /** The offer's vouchers would already be expired when bought (its `vouchers_expire.on` is past). */
  | 'vouchers_expired'
  /** A gift-card redemption of more than its balance; nothing was taken. */
  | 'insufficient_balance'
  /** A redemption rolled back before. */
  | 'already_rolled_back'
  /** A redemption older than REDEMPTION_ROLLBACK_HOURS. */
  | 'rollback_window_closed'
  /** Deleting an attachment that an offer which has not ended still shows (`offer_ids` names them). */
  | 'attachment_in_use'
  /** An Idempotency-Key used before for another request (another method, path or body). */
  | 'idempotency_key_reused'
  | 'forbidden'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'malformed_body'
  | 'backend_unavailable'
  /** What was asked for is no longer kept: a change-feed cursor or `since` older than the feed's 30 days (and the obsolete User endpoints). */
  | 'gone'
  /**
   * Not a refusal: the workflow admitted the change (an Update accepted, a signal delivered) but
   * had not applied it by the answer deadline; it will be. The API answers 202 saying where to look.
   */
  | 'accepted_pending';

export interface FailureDetail {
  code: FailureCode;
  message: string;
  field?: string;
  /** Extra facts a client can act on, e.g. the existing order's id on a duplicate order_number. */
  [extra: string]: unknown;
}

/** A refusal returned as a value: by a transaction that rolled back, or in a workflow's result. */
export type Refused = FailureDetail & { ok: false };

/** A refusal thrown: by a service, or inside a transaction to roll it back (see `refusable`). */
export class Failure extends Error {
  readonly details: FailureDetail[];
  constructor(code: FailureCode, message: string, extra: { field?: string; [k: string]: unknown } = {}) {
    super(message);
    this.details = [{ ...extra, code, message }];
  }

  /** Several problems at once (one per field), reported together. */
  static of(details: FailureDetail[]): Failure {
    const f = new Failure(details[0].code, details[0].message);
    (f as { details: FailureDetail[] }).details = details;
    return f;
  }

  get code(): FailureCode {
    return this.details[0].code;
  }

  /** The first detail as a returned refusal (what activities hand back to their workflow). */
  toRefused(): Refused {
    return { ok: false, ...this.details[0] };
  }
}

export const notFound = (what: string) => new Failure('not_found', `${what} not found`);
export const invalidField = (field: string, message: string, extra: Record<string, unknown> = {}) =>
  new Failure('invalid_field', message, { ...extra, field });
export const conflict = (code: FailureCode, message: string, extra: Record<string, unknown> = {}) => new Failure(code, message, extra);

/** Throws a refusal (inside a transaction: it rolls back). */
export const refuse = (code: FailureCode, message: string, extra: Record<string, unknown> = {}): never => {
  throw new Failure(code, message, extra);
};

/** Runs `work`; a refusal it throws (after its transaction rolled back) becomes a returned outcome. */
export async function refusable<T>(work: () => Promise<T>): Promise<T | Refused> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof Failure) return err.toRefused();
    throw err;
  }
}

/** A refusal value made throwable again (e.g. one read back from a workflow's result). */
export function refusalFailure(r: Refused): Failure {
  const { ok: _ok, code, message, ...extra } = r;
  return new Failure(code, message, extra);
}
