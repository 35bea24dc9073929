import crypto from 'node:crypto';

/**
 * A secret stored as the service wrote it before key rotation: `enc:v1:<iv>.<ciphertext>.<tag>`,
 * AES-256-GCM without a key id or additional data. The service no longer writes this form, but
 * must keep reading it, so tests make such rows themselves.
 */
export function sealV1(secret: string, keyBase64: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', Buffer.from(keyBase64, 'base64'), iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `enc:v1:${[iv, data, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.')}`;
}

/** A key's id, derived independently of platform/secret-box.ts: base64url of the first 8 bytes of SHA-256 of the key bytes. */
export function expectedKeyId(keyBase64: string): string {
  return crypto.createHash('sha256').update(Buffer.from(keyBase64, 'base64')).digest().subarray(0, 8).toString('base64url');
}
