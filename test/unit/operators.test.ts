import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../platform/config';
import { hashPassword, parseOperatorUsers, verifyPassword } from '../../platform/passwords';
import { Operators } from '../../services/operators';

/*
 * Each operator signs in as themselves: OPS_USERS holds scrypt hashes made by the admin CLI, never
 * passwords, and the console accepts exactly the password behind each hash.
 */
const ROOT = path.join(__dirname, '..', '..');

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

  it('signs in each OPS_USERS operator by their own password, and nobody else', async () => {
    const users = `alice:${await hashPassword('alice password 1')}, bob:${await hashPassword('bob password 22')}`;
    const ops = Operators.fromConfig({ OPS_USERS: users })!;
    await expect(ops.check('alice', 'alice password 1')).resolves.toBe('alice');
    await expect(ops.check('bob', 'bob password 22')).resolves.toBe('bob');
    await expect(ops.check('alice', 'bob password 22')).resolves.toBeUndefined();
    await expect(ops.check('carol', 'alice password 1')).resolves.toBeUndefined();
    // A remembered sign-in is keyed by the password too: a wrong one right after a right one still fails.
    await expect(ops.check('alice', 'alice password 1x')).resolves.toBeUndefined();
    // Nothing configured and no table: the console stays closed.
    await expect(Operators.fromConfig({}).open()).resolves.toBe(false);
    await expect(ops.open()).resolves.toBe(true);
  });

  it('refuses a malformed OPS_USERS at start, naming the variable', async () => {
    const hash = await hashPassword('alice password 1');
    expect(parseOperatorUsers(`alice:${hash}`).get('alice')).toBe(hash);
    for (const bad of [
      'alice',
      `alice:${hash},alice:${hash}`,
      'alice:scrypt:3:8:1:c2FsdHNhbHQ:a2V5a2V5a2V5a2V5a2V5a2V5',
      'alice:plaintext',
    ]) {
      expect(() => loadConfig({ OPS_USERS: bad })).toThrow(/OPS_USERS/);
    }
    expect(loadConfig({ OPS_USERS: `alice:${hash}` }).OPS_USERS).toBe(`alice:${hash}`);
  });

  it('the admin CLI prints a hash of the password read from stdin', async () => {
    const out = execFileSync('npm', ['run', '--silent', 'admin', '--', 'ops', 'hash-password'], {
      cwd: ROOT,
      input: 'a password from stdin\n',
      encoding: 'utf8',
    }).trim();
    expect(out).toMatch(/^scrypt:/);
    await expect(verifyPassword('a password from stdin', out)).resolves.toBe(true);
  }, 60_000);
});
