import crypto from 'node:crypto';

/** A new random resource id with a readable type prefix (`ofr_…`, `att_…`), as Stripe's ids have. */
export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(12).toString('base64url')}`;
}

/**
 * An id derived from an idempotency key (workflow id + step), so a retried activity writes the
 * same row again, which the database refuses, instead of a second one.
 */
export function derivedId(prefix: string, key: string): string {
  return `${prefix}_${crypto.createHash('sha256').update(key).digest('base64url').slice(0, 22)}`;
}

/**
 * The id of what a keyed POST makes, named after the client and the keyed request (decision 0080),
 * so a retry after a 5xx finds the first try's row; undefined for a request without a key.
 */
export function keyedRequestId(prefix: string, clientId: string, keyedRequest: string | undefined): string | undefined {
  return keyedRequest === undefined ? undefined : derivedId(prefix, `${clientId}\n${keyedRequest}`);
}
