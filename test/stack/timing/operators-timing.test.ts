import { hashPassword } from '../../../platform/passwords';
import { Operators, type StoredOperators } from '../../../services/operators';

/*
 * The console's sign-in takes as long for a real name with a wrong password as for a name that
 * does not exist, on every configuration (docs/ops-console.md): one scrypt of one cost on every
 * path. Before the fix the shared credential answered ~70 times faster for its own name.
 *
 * The statistics, and why the test is in the stack lane: it measures the machine, 15 tries of each
 * kind per configuration, each one scrypt (~0.1 s; ~20 s in all). Each kind's timing is the
 * MEDIAN of its 15 tries, so up to 7 of them can be slowed by anything (a GC pause, another process
 * taking the core) without moving it; and the tries are INTERLEAVED (real, unknown, real, …), so a
 * slow spell of the machine lands on both medians alike instead of on one kind. The test passes
 * while the ratio of the medians is within 0.5 to 2: the leak it guards against is a path that
 * skips or adds the hash, a factor of ~70 (or 2 for a second hash, at the bound), while the same
 * work on both paths gives a ratio near 1; failing by chance would take more than half of one
 * kind's tries slowed at least twofold and not the other's, which interleaving makes unlikely.
 * The medians are in the failure message (the `expect` compares them with themselves). It lives in
 * the stack lane because it is slow and load-sensitive, not because it needs the stack.
 */

const TRIES = 15;

/** The operators table as sign-in reads it, kept in a map (with a database's round trip left out). */
function storedIn(map: Map<string, string>): StoredOperators {
  return { hashOf: async (name) => map.get(name), any: async () => map.size > 0 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(ops: Operators, username: string, password: string): Promise<number> {
  const start = process.hrtime.bigint();
  await expect(ops.check(username, password)).resolves.toBeUndefined();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Medians (ms) of wrong sign-ins for the real name and for an unknown one, tried in turn so noise hits both. */
async function medians(ops: Operators, realName: string): Promise<{ real: number; unknown: number }> {
  await timed(ops, 'warm-up', 'warm-up password'); // the start-up hashes are ready before timing
  const real: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < TRIES; i++) {
    real.push(await timed(ops, realName, `wrong password ${i}`));
    unknown.push(await timed(ops, `nobody-${i}`, `wrong password ${i}`));
  }
  return { real: median(real), unknown: median(unknown) };
}

describe('console sign-in timing', () => {
  let anaHash: string;
  beforeAll(async () => {
    anaHash = await hashPassword('ana password 123');
  });

  const configurations: Array<[string, () => Record<string, string>, string, (() => Map<string, string>) | null]> = [
    // Every row has its four values: jest hands a shorter row's test a `done` callback in the last place.
    ['OPS_USERS only', () => ({ OPS_USERS: `ana:${anaHash}` }), 'ana', null],
    ['the shared OPS_USERNAME / OPS_PASSWORD only', () => ({ OPS_USERNAME: 'ana', OPS_PASSWORD: 'a long random passphrase' }), 'ana', null],
    [
      'both (the shared name)',
      () => ({ OPS_USERS: `bo:${anaHash}`, OPS_USERNAME: 'ana', OPS_PASSWORD: 'a long random passphrase' }),
      'ana',
      null,
    ],
    [
      'both (an OPS_USERS name)',
      () => ({ OPS_USERS: `bo:${anaHash}`, OPS_USERNAME: 'ana', OPS_PASSWORD: 'a long random passphrase' }),
      'bo',
      null,
    ],
    ['the operators table only (admin ops users add)', () => ({}), 'ana', () => new Map([['ana', anaHash]])],
    ['the table and OPS_USERS (a table name)', () => ({ OPS_USERS: `bo:${anaHash}` }), 'ana', () => new Map([['ana', anaHash]])],
  ];

  it.each(configurations)(
    '%s: a wrong password for the real name takes as long as an unknown name',
    async (_name, env, realName, table) => {
      const ops = Operators.fromConfig(env(), table ? storedIn(table()) : undefined);
      const { real, unknown } = await medians(ops, realName);
      const ratio = real / unknown;
      expect({ real, unknown, ratio: ratio > 0.5 && ratio < 2 }).toEqual({ real, unknown, ratio: true });
    },
  );
});
