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
