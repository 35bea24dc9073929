import crypto from 'node:crypto';

/*
 * The review console's operators: each signs in as themselves, so the reviewer a workflow records
 * is a person. Users come from configuration (OPS_USERS) with scrypt hashes (Node's built-in
 * scrypt: memory-hard, no native dependency), written `scrypt:N:r:p:<salt>:<key>` in base64url —
 * no `$`, so the value survives double quotes in a shell or a compose file.
 */

/** scrypt cost for new hashes: N=2^15, r=8, p=1 (32 MiB, ~50-100 ms here); stored in each hash, so it can rise later. */
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

/** A new scrypt hash of `password`, for OPS_USERS. */
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

/** OPS_USERS as name → hash; throws naming the first bad entry. */
export function parseOperatorUsers(value: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const entry of value.split(',').map((e) => e.trim())) {
    const colon = entry.indexOf(':');
    const name = entry.slice(0, colon);
    const hash = entry.slice(colon + 1);
    if (colon < 1) throw new Error(`entry "${entry.slice(0, 20)}…" is not name:hash`);
    const parsed = parseHash(hash);
    if (typeof parsed === 'string') throw new Error(`the hash of ${name} ${parsed}`);
    if (users.has(name)) throw new Error(`${name} is named twice`);
    users.set(name, hash);
  }
  return users;
}

/** Equal-length digests, so neither the length nor the content of a secret leaks through timing. */
function safeEqual(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given, 'utf8').digest();
  const b = crypto.createHash('sha256').update(expected, 'utf8').digest();
  return crypto.timingSafeEqual(a, b);
}

/** How long a verified sign-in is remembered: Basic auth resends the password with every request (and every thumbnail). */
const VERIFIED_TTL_MS = 5 * 60_000;
const VERIFIED_MAX = 1000;

/**
 * Who may sign in: the OPS_USERS operators, plus the single OPS_USERNAME / OPS_PASSWORD credential
 * when set (kept for existing set-ups; it is compared in constant time, not hashed).
 */
export class Operators {
  private readonly verified = new Map<string, number>();
  /** A hash checked for unknown names, so they take as long as known ones. */
  private readonly decoy: Promise<string> = hashPassword(crypto.randomBytes(16).toString('hex'));

  constructor(
    private readonly users: Map<string, string>,
    private readonly shared?: { username: string; password: string },
  ) {}

  /** The console's operators from configuration, or undefined when none is configured (the console stays closed). */
  static fromConfig(config: { OPS_USERS?: string; OPS_USERNAME?: string; OPS_PASSWORD?: string }): Operators | undefined {
    const users = config.OPS_USERS ? parseOperatorUsers(config.OPS_USERS) : new Map<string, string>();
    const shared =
      config.OPS_USERNAME && config.OPS_PASSWORD ? { username: config.OPS_USERNAME, password: config.OPS_PASSWORD } : undefined;
    if (users.size === 0 && !shared) return undefined;
    return new Operators(users, shared);
  }

  /** The operator's name when `password` is theirs, else undefined. */
  async check(username: string, password: string, now = Date.now()): Promise<string | undefined> {
    // The cache key covers the password: a changed or wrong password is never served from it.
    const remembered = crypto.createHash('sha256').update(`${username}\0${password}`, 'utf8').digest('base64');
    const until = this.verified.get(remembered);
    if (until !== undefined && until > now) return username;

    let ok: boolean;
    if (this.shared && username === this.shared.username) {
      ok = safeEqual(username, this.shared.username) && safeEqual(password, this.shared.password);
    } else {
      const hash = this.users.get(username);
      const matches = await verifyPassword(password, hash ?? (await this.decoy));
      ok = hash !== undefined && matches;
    }
    if (!ok) return undefined;
    if (this.verified.size >= VERIFIED_MAX)
      for (const [k, t] of this.verified) if (t <= now || this.verified.size >= VERIFIED_MAX) this.verified.delete(k);
    this.verified.set(remembered, now + VERIFIED_TTL_MS);
    return username;
  }
}
