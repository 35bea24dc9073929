import crypto from 'node:crypto';

/*
 * Callback signing secrets at rest (docs/security.md#callback-signing-secrets-at-rest). With a
 * key (CALLBACK_SECRET_KEY: 32 bytes, base64) a secret is stored as
 * `enc:v1:<iv>.<ciphertext>.<tag>` (AES-256-GCM, each part base64url); without one, as itself.
 * A stored value without the prefix is a clear secret (written before a key was set, or with none)
 * and is read as is, so setting a key needs no migration. The prefix's version names this format;
 * a later one (a key id for key rotation) gets `enc:v2:`.
 *
 * It lives in store/ because it is the column's storage format: the writers (services, via
 * setEndpoint/rotateSecret) and the reader (the delivery activity) both reach it through here.
 */

const PREFIX = 'enc:v1:';
const IV_BYTES = 12; // GCM's standard nonce size; random per secret, so never reused under one key

/** Thrown when a stored secret cannot be read: encrypted without a key configured, the wrong key, or damaged. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

/** The 32-byte key from its base64 form, or why it is not one (config validation uses this too). */
export function parseSecretKey(base64: string): Buffer {
  // 32 bytes are exactly 43 base64 characters and one "=": anything else is a typo or a cut-off key.
  if (!/^[A-Za-z0-9+/]{43}=$/.test(base64)) throw new SecretKeyError('must be 32 bytes in base64 (e.g. from `openssl rand -base64 32`)');
  return Buffer.from(base64, 'base64');
}

/** Whether a stored value is encrypted (needs the key to be read). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** The value to store for `secret`: encrypted with `keyBase64` when one is given, else the secret itself. */
export function sealSecret(secret: string, keyBase64: string | undefined): string {
  if (!keyBase64) return secret;
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', parseSecretKey(keyBase64), iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${PREFIX}${[iv, data, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.')}`;
}

/** The secret a stored value holds: a clear value as is; an encrypted one opened with `keyBase64`, or a SecretKeyError. */
export function openSecret(stored: string, keyBase64: string | undefined): string {
  if (!isSealed(stored)) return stored;
  if (!keyBase64) {
    throw new SecretKeyError(
      'a callback signing secret is stored encrypted but CALLBACK_SECRET_KEY is not set: set it to the key it was encrypted with',
    );
  }
  const [iv, data, tag] = stored
    .slice(PREFIX.length)
    .split('.')
    .map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !data || !tag || iv.length !== IV_BYTES || tag.length !== 16)
    throw new SecretKeyError('a stored callback signing secret is damaged');
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', parseSecretKey(keyBase64), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  } catch {
    // GCM's tag check: another key (or altered bytes) never yields a wrong secret, only this.
    throw new SecretKeyError(
      'a callback signing secret cannot be decrypted with CALLBACK_SECRET_KEY: it was encrypted with another key (or altered)',
    );
  }
}
