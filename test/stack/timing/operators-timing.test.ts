import { hashPassword } from '../../../platform/passwords';
import { Operators, type StoredOperators } from '../../../services/operators';

/*
 * The console's sign-in takes as long for a real name with a wrong password as for a name that
 * does not exist, on every configuration (docs/ops-console.md): one scrypt of one cost on every
 * path. Timings are compared as a ratio of medians over interleaved tries, so a busy machine slows
 * both sides alike; before the fix the shared credential answered ~70 times faster for its own name.
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

  it('the shared credential still signs in, only with its password', async () => {
    const ops = Operators.fromConfig({ OPS_USERS: `bo:${anaHash}`, OPS_USERNAME: 'ana', OPS_PASSWORD: 'a long random passphrase' });
    await expect(ops.check('ana', 'a long random passphrase')).resolves.toBe('ana');
    await expect(ops.check('ana', 'ana password 123')).resolves.toBeUndefined();
    await expect(ops.check('bo', 'ana password 123')).resolves.toBe('bo');
  });

  it('a table operator signs in at once and is refused as soon as removed, remembered sign-in or not', async () => {
    const table = new Map<string, string>();
    const ops = Operators.fromConfig({ OPS_USERS: `bo:${anaHash}` }, storedIn(table));
    await expect(ops.check('cy', 'ana password 123')).resolves.toBeUndefined();
    table.set('cy', anaHash);
    await expect(ops.check('cy', 'ana password 123')).resolves.toBe('cy');
    await expect(ops.check('cy', 'ana password 123')).resolves.toBe('cy'); // remembered
    table.delete('cy');
    await expect(ops.check('cy', 'ana password 123')).resolves.toBeUndefined();
    // A configured name wins over the same name in the table.
    table.set('bo', await hashPassword('another password 9'));
    await expect(ops.check('bo', 'another password 9')).resolves.toBeUndefined();
    await expect(ops.check('bo', 'ana password 123')).resolves.toBe('bo');
  });

  it('is open with only a table operator, closed with neither', async () => {
    const table = new Map<string, string>();
    const ops = Operators.fromConfig({}, storedIn(table));
    await expect(ops.open()).resolves.toBe(false);
    table.set('cy', anaHash);
    await expect(ops.open()).resolves.toBe(true);
  });
});
