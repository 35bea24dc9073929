import crypto from 'node:crypto';
import { ConfigError, loadConfig } from '../../infra/config';
import { signingSecrets } from '../../store/callbacks';
import { isSealed, openSecret, sealSecret, SecretKeyError } from '../../store/secret-box';

const newKey = () => crypto.randomBytes(32).toString('base64');
const secret = `whsec_${crypto.randomBytes(32).toString('base64')}`;

describe('callback signing secrets at rest', () => {
  it('stores an encrypted, versioned value that is not the secret, and opens it with the same key', () => {
    const key = newKey();
    const stored = sealSecret(secret, key);
    expect(stored).toMatch(/^enc:v1:[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored).not.toContain(secret.slice(6));
    expect(isSealed(stored)).toBe(true);
    expect(openSecret(stored, key)).toBe(secret);
    // A fresh nonce each time: the same secret never gives the same stored value.
    expect(sealSecret(secret, key)).not.toBe(stored);
  });

  it('stores and reads clear secrets as they are without a key, and reads clear rows as they are with one', () => {
    expect(sealSecret(secret, undefined)).toBe(secret);
    expect(openSecret(secret, undefined)).toBe(secret);
    expect(openSecret(secret, newKey())).toBe(secret);
  });

  it('refuses, never guesses: another key, no key, or altered bytes', () => {
    const stored = sealSecret(secret, newKey());
    expect(() => openSecret(stored, newKey())).toThrow(SecretKeyError);
    expect(() => openSecret(stored, newKey())).toThrow(/encrypted with another key/);
    expect(() => openSecret(stored, undefined)).toThrow(/CALLBACK_SECRET_KEY is not set/);
    const key = newKey();
    const [iv, data, tag] = sealSecret(secret, key).slice('enc:v1:'.length).split('.');
    const flipped = Buffer.from(data, 'base64url');
    flipped[0] ^= 1;
    expect(() => openSecret(`enc:v1:${iv}.${flipped.toString('base64url')}.${tag}`, key)).toThrow(SecretKeyError);
    expect(() => openSecret(`enc:v1:${iv}.${data}`, key)).toThrow(/damaged/);
  });

  it('signs with both secrets of a rotation, clear or encrypted, and fails loudly without the key', () => {
    const key = newKey();
    const previous = `whsec_${crypto.randomBytes(32).toString('base64')}`;
    const row = { secret: sealSecret(secret, key), previous_secret: previous, previous_secret_expires_at: new Date(Date.now() + 60_000) };
    expect(signingSecrets(row, key)).toEqual([secret, previous]);
    expect(() => signingSecrets(row, undefined)).toThrow(SecretKeyError);
  });

  it('CALLBACK_SECRET_KEY must be 32 bytes of base64', () => {
    const key = newKey();
    expect(loadConfig({ CALLBACK_SECRET_KEY: key }).CALLBACK_SECRET_KEY).toBe(key);
    expect(loadConfig({}).CALLBACK_SECRET_KEY).toBeUndefined();
    for (const bad of [
      crypto.randomBytes(16).toString('base64'),
      key.slice(0, -2),
      'not base64 at all',
      crypto.randomBytes(32).toString('hex'),
    ]) {
      expect(() => loadConfig({ CALLBACK_SECRET_KEY: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ CALLBACK_SECRET_KEY: bad })).toThrow(/CALLBACK_SECRET_KEY: must be 32 bytes in base64/);
    }
  });
});
