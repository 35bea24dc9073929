import crypto from 'node:crypto';
import { invalidField, notFound, refuse } from '../domain/failures';
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from '../platform/passwords';
import type { Db } from '../store/db';
import { anyOperator, deleteOperator, findOperatorHash, insertOperator, listOperators } from '../store/operators';

/*
 * The review console's operators: each signs in as themselves, so the reviewer a workflow records
 * is a person. They live in the operators table (`admin ops users add`, store/operators.ts), with
 * scrypt hashes (platform/passwords.ts), the one way to name an operator (decision 0076). The table
 * is read on every sign-in, so an operator added or removed counts at once, in every process, with
 * no restart.
 *
 * Every sign-in costs exactly one scrypt verification of the same cost, whatever the name and
 * password: a known name is checked against its hash, any other name against a decoy hash of the
 * cost every operator is hashed at. So the answer's timing says nothing about which names exist
 * (docs/ops-console.md).
 */

/** How long a verified sign-in is remembered: Basic auth resends the password with every request (and every thumbnail). */
const VERIFIED_TTL_MS = 5 * 60_000;
const VERIFIED_MAX = 1000;

/** The operators as sign-in reads them: the database's table, or a map in unit tests. */
export interface StoredOperators {
  hashOf(name: string): Promise<string | undefined>;
  any(): Promise<boolean>;
}

export const databaseOperators = (db: Db): StoredOperators => ({
  hashOf: (name) => findOperatorHash(db, name),
  any: () => anyOperator(db),
});

/** Who may sign in: the operators of the table. */
export class Operators {
  private readonly verified = new Map<string, number>();
  /** The hash checked for unknown names, so they take as long as known ones. */
  private readonly decoy: Promise<string>;

  constructor(private readonly stored: StoredOperators) {
    this.decoy = hashPassword(crypto.randomBytes(16).toString('hex'));
    // It never rejects; an unobserved rejection must not crash the process before the first sign-in.
    this.decoy.catch(() => undefined);
  }

  /** Whether anyone may sign in (the console is closed, 503, until an operator is added). */
  open(): Promise<boolean> {
    return this.stored.any();
  }

  /** The operator's name when `password` is theirs, else undefined. */
  async check(username: string, password: string, now = Date.now()): Promise<string | undefined> {
    const [decoy, hash] = await Promise.all([this.decoy, this.stored.hashOf(username)]);
    // The cache key covers the password and the current hash: a changed or wrong password, or an
    // operator removed from the table, is never served from it.
    const remembered = crypto
      .createHash('sha256')
      .update(`${username}\0${password}\0${hash ?? ''}`, 'utf8')
      .digest('base64');
    const until = this.verified.get(remembered);
    if (hash !== undefined && until !== undefined && until > now) return username;

    // One scrypt on every path, of one cost; verifyPassword compares the derived keys in constant time.
    const matches = await verifyPassword(password, hash ?? decoy);
    if (hash === undefined || !matches) return undefined;
    if (this.verified.size >= VERIFIED_MAX)
      for (const [k, t] of this.verified) if (t <= now || this.verified.size >= VERIFIED_MAX) this.verified.delete(k);
    this.verified.set(remembered, now + VERIFIED_TTL_MS);
    return username;
  }
}

/** A name an operator signs in with (HTTP Basic: no colon) and is recorded under as reviewer. */
const OPERATOR_NAME = /^[\p{L}\p{N}._@+-]{1,64}$/u;

/** Adds an operator to the table, who may sign in to the console at once, hashed at the one cost sign-in uses. */
export async function addOperator(deps: { db: Db }, name: string, password: string): Promise<{ name: string; created_at: Date }> {
  if (!OPERATOR_NAME.test(name))
    throw invalidField('name', 'an operator name is 1 to 64 letters, digits and . _ @ + - (no spaces, no colon)');
  if (password.length < MIN_PASSWORD_LENGTH) throw invalidField('password', `a password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  const added = await insertOperator(deps.db, name, await hashPassword(password));
  return added ?? refuse('duplicate', `an operator named ${name} exists already; remove it first to set a new password`, { field: 'name' });
}

/** Removes an operator; their next request is refused. */
export async function removeOperator(deps: { db: Db }, name: string): Promise<void> {
  if (!(await deleteOperator(deps.db, name))) throw notFound(`operator ${name}`);
}

/** Every operator who may sign in; never a hash. */
export async function allOperators(deps: { db: Db }): Promise<Array<{ name: string; created_at: Date }>> {
  return (await listOperators(deps.db)).map((o) => ({ name: o.name, created_at: o.created_at }));
}
