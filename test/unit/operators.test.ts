import { hashPassword, verifyPassword } from '../../platform/passwords';
import { Operators, type StoredOperators } from '../../services/operators';

/*
 * Each operator signs in as themselves, from the operators table (admin ops users add), which holds
 * scrypt hashes, never passwords; the console accepts exactly the password behind each hash. How long
 * a refusal takes is test/stack/timing/operators-timing.test.ts's subject.
 */

/** The operators table as sign-in reads it, kept in a map (with a database's round trip left out). */
function storedIn(map: Map<string, string>): StoredOperators {
  return { hashOf: async (name) => map.get(name), any: async () => map.size > 0 };
}

describe('operator passwords', () => {
  it('hashes with a fresh salt and verifies only the same password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt:32768:8:1:[\w-]+:[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
    await expect(verifyPassword('correct horse battery', a)).resolves.toBe(true);
    await expect(verifyPassword('correct horse batterY', a)).resolves.toBe(false);
    await expect(verifyPassword('correct horse battery', 'scrypt:1:1:1:x:y')).resolves.toBe(false);
    await expect(hashPassword('too short')).rejects.toThrow(/12 characters/);
  });
});

describe('console sign-in', () => {
  it('signs in each operator by their own password, and nobody else', async () => {
    const table = new Map([
      ['alice', await hashPassword('alice password 1')],
      ['bob', await hashPassword('bob password 22')],
    ]);
    const ops = new Operators(storedIn(table));
    await expect(ops.check('alice', 'alice password 1')).resolves.toBe('alice');
    await expect(ops.check('bob', 'bob password 22')).resolves.toBe('bob');
    await expect(ops.check('alice', 'bob password 22')).resolves.toBeUndefined();
    await expect(ops.check('carol', 'alice password 1')).resolves.toBeUndefined();
    // A remembered sign-in is keyed by the password too: a wrong one right after a right one still fails.
    await expect(ops.check('alice', 'alice password 1x')).resolves.toBeUndefined();
  });

  it('an operator signs in at once and is refused as soon as removed, remembered sign-in or not', async () => {
    const table = new Map<string, string>();
    const ops = new Operators(storedIn(table));
    await expect(ops.check('cy', 'cy password 123')).resolves.toBeUndefined();
    table.set('cy', await hashPassword('cy password 123'));
    await expect(ops.check('cy', 'cy password 123')).resolves.toBe('cy');
    await expect(ops.check('cy', 'cy password 123')).resolves.toBe('cy'); // remembered
    table.delete('cy');
    await expect(ops.check('cy', 'cy password 123')).resolves.toBeUndefined();
  });

  it('is open once an operator exists, closed before', async () => {
    const table = new Map<string, string>();
    const ops = new Operators(storedIn(table));
    await expect(ops.open()).resolves.toBe(false);
    table.set('cy', await hashPassword('cy password 123'));
    await expect(ops.open()).resolves.toBe(true);
  });
});
