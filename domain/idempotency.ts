import { redeemRequestOf } from './redemptions';

/*
 * What an Idempotency-Key is and what makes two requests the same request
 * (docs/decisions/0061-idempotency-keys.md).
 */

/** How long a key's first answer is replayed (the issue asks at least 24 hours). */
export const IDEMPOTENCY_REPLAY_SECONDS = 24 * 3600;

/** 1 to 255 printable ASCII characters, no spaces: the redeem's rule since issue 33, now every route's. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** Why this Idempotency-Key header value is refused, or undefined when it is a good key. */
export function badIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return 'must be given once';
  if (!KEY.test(value)) return 'must be 1 to 255 printable ASCII characters without spaces';
  return undefined;
}

/**
 * The request a key names, as text to hash: method, path (with its query) and the body as the route
 * reads it, keys sorted at every level, so the same fields in another order, or the same body in
 * XML, are the same request (the redeem's rule, `redeemRequestOf`). No body is the same as an
 * empty one; an upload is named by its file's name and SHA-256 (api/routes/submission/attachments.ts).
 */
export function idempotencyRequestText(method: string, path: string, body: unknown): string {
  return JSON.stringify([method.toUpperCase(), path, body === undefined ? '' : redeemRequestOf(body)]);
}
