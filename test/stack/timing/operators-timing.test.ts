import { hashPassword } from '../../../platform/passwords';
import { Operators, type StoredOperators } from '../../../services/operators';

/*
 * The console's sign-in takes as long for a real name with a wrong password as for a name that
 * does not exist (docs/ops-console.md): one scrypt of one cost on every path. Before the fix a
 * shared credential (since removed) answered ~70 times faster for its own name.
 *
 * The statistics, and why the test is in the stack lane: it measures the machine, 15 tries of each
 * kind, each one scrypt (~0.1 s; ~3 s in all). Each kind's timing is the
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
  it('a wrong password for a real name takes as long as an unknown name', async () => {
    const ops = new Operators(storedIn(new Map([['ana', await hashPassword('ana password 123')]])));
    const { real, unknown } = await medians(ops, 'ana');
    const ratio = real / unknown;
    expect({ real, unknown, ratio: ratio > 0.5 && ratio < 2 }).toEqual({ real, unknown, ratio: true });
  });
});
