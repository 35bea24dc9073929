import crypto from 'node:crypto';

/*
 * Password hashing for the review console's operators (the operators table): Node's built-in scrypt
 * (memory-hard, no native dependency), written `scrypt:N:r:p:<salt>:<key>` in base64url. The console
 * verifies sign-ins with it (services/operators.ts).
 */

/** scrypt cost for new hashes: N=2^15, r=8, p=1 (32 MiB of memory per hash); stored in each hash, so it can rise later. */
export const SCRYPT_COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
export const MIN_PASSWORD_LENGTH = 12;

interface StoredHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function derive(password: string, salt: Buffer, c: { N: number; r: number; p: number }, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    crypto.scrypt(password.normalize('NFC'), salt, length, { N: c.N, r: c.r, p: c.p, maxmem: 256 * c.N * c.r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** A new scrypt hash of `password`, for the operators table. */
export async function hashPassword(password: string, cost = SCRYPT_COST): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH) throw new Error(`a password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  const salt = crypto.randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost, KEY_BYTES);
  return `scrypt:${cost.N}:${cost.r}:${cost.p}:${salt.toString('base64url')}:${key.toString('base64url')}`;
}

/** A stored hash's parts, or an error message. Costs are bounded so a typo cannot make each sign-in take minutes. */
function parseHash(hash: string): StoredHash | string {
  const m = /^scrypt:(\d+):(\d+):(\d+):([\w-]+):([\w-]+)$/.exec(hash);
  if (!m) return 'is not a scrypt:N:r:p:salt:key hash';
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N < 2 ** 10 || N > 2 ** 20 || (N & (N - 1)) !== 0) return 'has an N that is not a power of two between 2^10 and 2^20';
  if (r < 1 || r > 32 || p < 1 || p > 16) return 'has r or p out of range (r 1-32, p 1-16)';
  const salt = Buffer.from(m[4], 'base64url');
  const key = Buffer.from(m[5], 'base64url');
  if (salt.length < 8 || key.length < 16) return 'has a salt or key too short';
  return { N, r, p, salt, key };
}

/** Whether `password` matches `hash` (constant-time comparison of the derived keys). */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const h = parseHash(hash);
  if (typeof h === 'string') return false;
  const key = await derive(password, h.salt, h, h.key.length);
  return crypto.timingSafeEqual(key, h.key);
}
