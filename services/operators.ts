import crypto from 'node:crypto';
import { Failure, invalidField, notFound } from '../domain/failures';
import type { Config } from '../platform/config';
import { hashCost, hashPassword, MIN_PASSWORD_LENGTH, parseOperatorUsers, SCRYPT_COST, verifyPassword } from '../platform/passwords';
import type { Db } from '../store/db';
import { anyOperator, deleteOperator, findOperatorHash, insertOperator, listOperators } from '../store/operators';

/*
 * The review console's operators: each signs in as themselves, so the reviewer a workflow records
 * is a person. Users come from configuration (OPS_USERS, parsed by platform/config.ts) and from the
 * operators table (`admin ops users add`, store/operators.ts), all with scrypt hashes
 * (platform/passwords.ts). The table is read on every sign-in, so an operator added or removed
 * there counts at once, in every process, with no restart; a configured name wins over a stored one.
 *
 * Every sign-in costs exactly one scrypt verification of the same cost, whatever the name and
 * password: a known name is checked against its hash, the shared OPS_USERNAME against a hash of
 * OPS_PASSWORD made at start, any other name against a decoy hash, all at one cost (stored
 * operators are hashed at that cost when added). Every sign-in also reads the table once, whether
 * the name is configured or not. So the answer's timing says nothing about which names exist
 * (docs/ops-console.md).
 */

/** How long a verified sign-in is remembered: Basic auth resends the password with every request (and every thumbnail). */
const VERIFIED_TTL_MS = 5 * 60_000;
const VERIFIED_MAX = 1000;

type Cost = typeof SCRYPT_COST;

/** Operators added at run time, as sign-in reads them: the database's table, or a map in unit tests. */
export interface StoredOperators {
  hashOf(name: string): Promise<string | undefined>;
  any(): Promise<boolean>;
}

export const databaseOperators = (db: Db): StoredOperators => ({
  hashOf: (name) => findOperatorHash(db, name),
  any: () => anyOperator(db),
});

/** The dearest cost among the operators' hashes (the default when there are none): decoy, shared and stored hashes use it. */
function signInCost(hashes: Iterable<string>): Cost {
  let cost: Cost = SCRYPT_COST;
  let work = cost.N * cost.r * cost.p;
  for (const hash of hashes) {
    const c = hashCost(hash);
    if (c && c.N * c.r * c.p > work) [cost, work] = [c, c.N * c.r * c.p];
  }
  return cost;
}

/**
 * Who may sign in: the OPS_USERS operators, plus the single OPS_USERNAME / OPS_PASSWORD credential
 * when set (kept for existing set-ups; it takes precedence over an OPS_USERS entry of the same name).
 */
export class Operators {
  private readonly verified = new Map<string, number>();
  /** Each name's hash, the shared credential's included (hashed once, at start). */
  private readonly hashes: Promise<Map<string, string>>;
  /** The hash checked for unknown names, so they take as long as known ones. */
  private readonly decoy: Promise<string>;
  private readonly configured: boolean;

  constructor(
    users: Map<string, string>,
    shared?: { username: string; password: string },
    private readonly stored?: StoredOperators,
  ) {
    this.configured = users.size > 0 || shared !== undefined;
    const cost = signInCost(users.values());
    this.decoy = hashPassword(crypto.randomBytes(16).toString('hex'), cost);
    this.hashes = (async () => {
      const all = new Map(users);
      if (shared) all.set(shared.username, await hashPassword(shared.password, cost));
      return all;
    })();
    // Neither rejects for a valid configuration; an unobserved rejection must not crash the process before the first sign-in.
    this.decoy.catch(() => undefined);
    this.hashes.catch(() => undefined);
  }

  /** The console's operators: those from configuration, and those of `stored` (the operators table) when given. */
  static fromConfig(config: OperatorSettings, stored?: StoredOperators): Operators {
    const users = config.OPS_USERS ? parseOperatorUsers(config.OPS_USERS) : new Map<string, string>();
    return new Operators(users, sharedCredential(config), stored);
  }

  /** Whether anyone may sign in: an operator configured, or one added (the console is closed, 503, until then). */
  async open(): Promise<boolean> {
    return this.configured || ((await this.stored?.any()) ?? false);
  }

  /** The operator's name when `password` is theirs, else undefined. */
  async check(username: string, password: string, now = Date.now()): Promise<string | undefined> {
    // The table is read for every name, configured or not, so the read itself tells no name apart.
    const [hashes, decoy, storedHash] = await Promise.all([this.hashes, this.decoy, this.stored?.hashOf(username)]);
    const hash = hashes.get(username) ?? storedHash;
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

type OperatorSettings = Pick<Config, 'OPS_USERS' | 'OPS_USERNAME' | 'OPS_PASSWORD'>;

function sharedCredential(config: OperatorSettings): { username: string; password: string } | undefined {
  return config.OPS_USERNAME && config.OPS_PASSWORD ? { username: config.OPS_USERNAME, password: config.OPS_PASSWORD } : undefined;
}

/** The names configured in OPS_USERS and OPS_USERNAME, with the variable each comes from. */
function configuredOperators(config: OperatorSettings): Map<string, 'OPS_USERS' | 'OPS_USERNAME'> {
  const names = new Map<string, 'OPS_USERS' | 'OPS_USERNAME'>();
  for (const name of config.OPS_USERS ? parseOperatorUsers(config.OPS_USERS).keys() : []) names.set(name, 'OPS_USERS');
  const shared = sharedCredential(config);
  if (shared) names.set(shared.username, 'OPS_USERNAME');
  return names;
}

/** A name an operator signs in with (HTTP Basic: no colon) and is recorded under as reviewer. */
const OPERATOR_NAME = /^[\p{L}\p{N}._@+-]{1,64}$/u;

interface OperatorDeps {
  db: Db;
  config: Readonly<OperatorSettings>;
}

/**
 * Adds an operator to the table, who may sign in to the console at once. The password is hashed at
 * the cost the console's sign-in uses for this configuration, so their sign-ins take as long as
 * anyone's. Refuses a name configured in OPS_USERS / OPS_USERNAME (configuration would win).
 */
export async function addOperator(deps: OperatorDeps, name: string, password: string): Promise<{ name: string; created_at: Date }> {
  if (!OPERATOR_NAME.test(name))
    throw invalidField('name', 'an operator name is 1 to 64 letters, digits and . _ @ + - (no spaces, no colon)');
  const configured = configuredOperators(deps.config).get(name);
  if (configured)
    throw new Failure('conflict', `${name} is configured in ${configured}; the configuration's password is the one that counts`);
  if (password.length < MIN_PASSWORD_LENGTH) throw invalidField('password', `a password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  const users = deps.config.OPS_USERS ? parseOperatorUsers(deps.config.OPS_USERS) : new Map<string, string>();
  return insertOperator(deps.db, name, await hashPassword(password, signInCost(users.values())));
}

/** Removes an operator added with addOperator; one from configuration is refused (change the configuration instead). */
export async function removeOperator(deps: OperatorDeps, name: string): Promise<void> {
  const configured = configuredOperators(deps.config).get(name);
  if (configured) throw new Failure('conflict', `${name} is configured in ${configured}: remove it there and restart`);
  if (!(await deleteOperator(deps.db, name))) throw notFound(`operator ${name}`);
}

/** Every operator who may sign in, where each comes from; never a hash. */
export async function allOperators(
  deps: OperatorDeps,
): Promise<Array<{ name: string; source: 'OPS_USERS' | 'OPS_USERNAME' | 'database'; created_at: Date | null }>> {
  const configured = configuredOperators(deps.config);
  const fromConfig = [...configured].map(([name, source]) => ({ name, source, created_at: null }));
  // A stored name that configuration also holds is shadowed: configuration's password counts, so it is listed once, as configured.
  const stored = (await listOperators(deps.db)).filter((o) => !configured.has(o.name));
  return [...fromConfig, ...stored.map((o) => ({ name: o.name, source: 'database' as const, created_at: o.created_at }))];
}
