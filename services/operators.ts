import crypto from 'node:crypto';
import { hashPassword, parseOperatorUsers, verifyPassword } from '../platform/passwords';

/*
 * The review console's operators: each signs in as themselves, so the reviewer a workflow records
 * is a person. Users come from configuration (OPS_USERS, parsed by platform/config.ts) with scrypt
 * hashes (platform/passwords.ts).
 */

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
