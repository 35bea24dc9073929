import crypto from 'node:crypto';

/*
 * Callback signing secrets at rest (docs/security.md#callback-signing-secrets-at-rest).
 * CALLBACK_SECRET_KEY is a list of keys (32 bytes each, base64, comma-separated): the first, the
 * current key, encrypts what is written; the others only open what they encrypted before, during a
 * key rotation. Stored values:
 *
 *   whsec_…                            a clear secret (written without a key): read as is
 *   enc:v1:<iv>.<ciphertext>.<tag>     AES-256-GCM, no key id: opened by trying each key
 *   enc:v2:<key id>:<iv>.<ct>.<tag>    AES-256-GCM under the key with that id; what is written now
 *
 * Each part is base64url. The key id is the first 8 bytes of SHA-256 of the key (keyId), so the
 * right key is found without trial and a refusal can say which key is missing; it reveals nothing
 * of the key. In v2 the prefix up to the key id is authenticated too (GCM additional data).
 *
 * It is the column's one storage format: the writers (services, via setEndpoint/rotateSecret) and
 * the reader (the delivery activity) both reach it through here.
 */

/** CALLBACK_SECRET_KEY as configured: the current key first, then keys kept only for reading; undefined when unset. */
export type SecretKeys = readonly string[] | undefined;

const SEALED = 'enc:';
const V1 = 'enc:v1:';
const V2 = 'enc:v2:';
const IV_BYTES = 12; // GCM's standard nonce size; random per secret, so never reused under one key
const TAG_BYTES = 16;

/** Thrown when a stored secret cannot be read: encrypted without its key configured, or damaged. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

/** The 32-byte key from its base64 form, or why it is not one (config validation uses this too). */
export function parseSecretKey(base64: string): Buffer {
  // 32 bytes are exactly 43 base64 characters and one "=": anything else is a typo or a cut-off key.
  if (!/^[A-Za-z0-9+/]{43}=$/.test(base64)) throw new SecretKeyError('must be 32 bytes in base64 (e.g. from `openssl rand -base64 32`)');
  return Buffer.from(base64, 'base64');
}

interface Key {
  id: string;
  bytes: Buffer;
}

// Keys come only from configuration (a handful), so parsing each once is enough.
const parsed = new Map<string, Key>();

function key(base64: string): Key {
  let k = parsed.get(base64);
  if (!k) {
    const bytes = parseSecretKey(base64);
    k = { id: crypto.createHash('sha256').update(bytes).digest().subarray(0, 8).toString('base64url'), bytes };
    parsed.set(base64, k);
  }
  return k;
}

/** A key's id, as `enc:v2:` values and refusals name it: base64url of the first 8 bytes of SHA-256 of the 32 key bytes. */
export function keyId(keyBase64: string): string {
  return key(keyBase64).id;
}

/** Whether a stored value is encrypted (needs a key to be read), in any format. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED);
}

/** How a stored value is kept: in clear, v1 (no key id), v2 under a key id, or an `enc:` format this version does not know. */
export type StoredForm = { form: 'clear' } | { form: 'v1' } | { form: 'v2'; keyId: string } | { form: 'unknown' };

export function storedForm(stored: string): StoredForm {
  if (!isSealed(stored)) return { form: 'clear' };
  if (stored.startsWith(V1)) return { form: 'v1' };
  if (stored.startsWith(V2)) {
    const end = stored.indexOf(':', V2.length);
    if (end > V2.length) return { form: 'v2', keyId: stored.slice(V2.length, end) };
  }
  return { form: 'unknown' };
}

/** The prefix every value written under the current key starts with (`enc:v2:<key id>:`), or null without a key. */
export function currentPrefix(keys: SecretKeys): string | null {
  return keys?.length ? `${V2}${keyId(keys[0])}:` : null;
}

/** Whether a stored value is already as the current key would write it (v2 under that key). */
export function isUnderCurrentKey(stored: string, keys: SecretKeys): boolean {
  const prefix = currentPrefix(keys);
  return prefix !== null && stored.startsWith(prefix);
}

/** The value to store for `secret`: `enc:v2:` under the current (first) key when keys are set, else the secret itself. */
export function sealSecret(secret: string, keys: SecretKeys): string {
  if (!keys?.length) return secret;
  const k = key(keys[0]);
  const header = `${V2}${k.id}:`;
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', k.bytes, iv);
  cipher.setAAD(Buffer.from(header, 'utf8'));
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${header}${[iv, data, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.')}`;
}

function parts(body: string): [Buffer, Buffer, Buffer] {
  const [iv, data, tag, ...rest] = body.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !data || !tag || rest.length || iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
    throw new SecretKeyError('a stored callback signing secret is damaged');
  return [iv, data, tag];
}

/** The plaintext, or null when `k` is not the key (or the bytes were altered): GCM's tag never lets a wrong key give a wrong secret. */
function tryOpen(k: Key, [iv, data, tag]: [Buffer, Buffer, Buffer], aad: string | null): string | null {
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', k.bytes, iv);
    if (aad !== null) decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

const configured = (keys: readonly string[]) => keys.map((k, i) => `${keyId(k)}${i === 0 ? ' (current)' : ''}`).join(', ');

/**
 * The secret a stored value holds: a clear value as is; a v2 one opened with the configured key of
 * its key id; a v1 one with whichever configured key opens it. Otherwise a SecretKeyError that says
 * which key is missing.
 */
export function openSecret(stored: string, keys: SecretKeys): string {
  const f = storedForm(stored);
  if (f.form === 'clear') return stored;
  if (f.form === 'unknown')
    throw new SecretKeyError(
      `a stored callback signing secret is in a format this version does not know (${stored.split(':', 2).join(':')}:…; written by a newer version?)`,
    );
  const missing = f.form === 'v2' ? `key id ${f.keyId}` : 'a key';
  if (!keys?.length) {
    throw new SecretKeyError(
      `a callback signing secret is stored encrypted (${missing}) but CALLBACK_SECRET_KEY is not set: set it to the key it was encrypted with`,
    );
  }
  if (f.form === 'v2') {
    const header = `${V2}${f.keyId}:`;
    const k = keys.map(key).find((c) => c.id === f.keyId);
    if (!k) {
      throw new SecretKeyError(
        `a callback signing secret is encrypted with another key, key id ${f.keyId}, which is not in CALLBACK_SECRET_KEY (${configured(keys)})`,
      );
    }
    const opened = tryOpen(k, parts(stored.slice(header.length)), header);
    if (opened === null)
      throw new SecretKeyError(`a stored callback signing secret (key id ${f.keyId}) fails its integrity check: altered`);
    return opened;
  }
  const p = parts(stored.slice(V1.length));
  for (const k of keys) {
    const opened = tryOpen(key(k), p, null);
    if (opened !== null) return opened;
  }
  throw new SecretKeyError(
    `a callback signing secret (enc:v1, without a key id) cannot be decrypted with any key in CALLBACK_SECRET_KEY (${configured(keys)}): it was encrypted with another key (or altered)`,
  );
}
