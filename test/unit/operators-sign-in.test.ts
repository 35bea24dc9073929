import { hashPassword } from '../../platform/passwords';
import { Operators, type StoredOperators } from '../../services/operators';

/*
 * Signing in to the console with each way of configuring operators (docs/ops-console.md): the shared
 * credential beside OPS_USERS, operators of the table (admin ops users add), and when the console is
 * open at all. How long a refusal takes is test/stack/timing/operators-timing.test.ts's subject.
 */

/** The operators table as sign-in reads it, kept in a map (with a database's round trip left out). */
function storedIn(map: Map<string, string>): StoredOperators {
  return { hashOf: async (name) => map.get(name), any: async () => map.size > 0 };
}

describe('console sign-in', () => {
  let anaHash: string;
  beforeAll(async () => {
    anaHash = await hashPassword('ana password 123');
  });

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
