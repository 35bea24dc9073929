import crypto from 'node:crypto';
import { ConfigError, loadConfig } from '../../platform/config';
import { signingSecrets } from '../../activities/callbacks/signing';
import { isSealed, isUnderCurrentKey, keyId, openSecret, sealSecret, SecretKeyError, storedForm } from '../../platform/secret-box';
import { expectedKeyId, sealV1 } from '../setup/secret-v1';

const newKey = () => crypto.randomBytes(32).toString('base64');
const secret = `whsec_${crypto.randomBytes(32).toString('base64')}`;

describe('callback signing secrets at rest', () => {
  it('stores an encrypted value under the key id of the current key, not the secret, and opens it with the same key', () => {
    const key = newKey();
    const stored = sealSecret(secret, [key]);
    expect(stored).toMatch(new RegExp(`^enc:v2:${expectedKeyId(key)}:[\\w-]+\\.[\\w-]+\\.[\\w-]+$`));
    expect(expectedKeyId(key)).toHaveLength(11); // 8 bytes in base64url
    expect(keyId(key)).toBe(expectedKeyId(key));
    expect(stored).not.toContain(secret.slice(6));
    expect(isSealed(stored)).toBe(true);
    expect(storedForm(stored)).toEqual({ form: 'v2', keyId: expectedKeyId(key) });
    expect(openSecret(stored, [key])).toBe(secret);
    // A fresh nonce each time: the same secret never gives the same stored value.
    expect(sealSecret(secret, [key])).not.toBe(stored);
  });

  it('stores and reads clear secrets as they are without a key, and reads clear rows as they are with one', () => {
    expect(sealSecret(secret, undefined)).toBe(secret);
    expect(sealSecret(secret, [])).toBe(secret);
    expect(openSecret(secret, undefined)).toBe(secret);
    expect(openSecret(secret, [newKey()])).toBe(secret);
    expect(storedForm(secret)).toEqual({ form: 'clear' });
  });

  it('refuses, never guesses: another key, no key, or altered bytes', () => {
    const key = newKey();
    const stored = sealSecret(secret, [key]);
    expect(() => openSecret(stored, [newKey()])).toThrow(SecretKeyError);
    expect(() => openSecret(stored, [newKey()])).toThrow(`encrypted with another key, key id ${expectedKeyId(key)}`);
    expect(() => openSecret(stored, undefined)).toThrow(/CALLBACK_SECRET_KEY is not set/);
    const [iv, data, tag] = stored.slice(`enc:v2:${keyId(key)}:`.length).split('.');
    const flipped = Buffer.from(data, 'base64url');
    flipped[0] ^= 1;
    expect(() => openSecret(`enc:v2:${keyId(key)}:${iv}.${flipped.toString('base64url')}.${tag}`, [key])).toThrow(/altered/);
    expect(() => openSecret(`enc:v2:${keyId(key)}:${iv}.${data}`, [key])).toThrow(/damaged/);
    // An unknown enc: format is refused, never taken for a clear secret and signed with.
    expect(() => openSecret(`enc:v3:${iv}.${data}.${tag}`, [key])).toThrow(/format this version does not know \(enc:v3:…/);
  });

  it('authenticates the prefix with the value: a v2 value relabelled (another key id, or as v1) does not open', () => {
    const [a, b] = [newKey(), newKey()];
    const stored = sealSecret(secret, [a, b]);
    expect(() => openSecret(stored.replace(keyId(a), keyId(b)), [a, b])).toThrow(/altered/);
    expect(() => openSecret(stored.replace(`enc:v2:${keyId(a)}:`, 'enc:v1:'), [a, b])).toThrow(/cannot be decrypted with any key/);
  });

  describe('key rotation: CALLBACK_SECRET_KEY is a list, current key first', () => {
    const [oldKey, newKey_] = [newKey(), newKey()];

    it('writes under the first key only; reads under any key in the list, found by key id', () => {
      const underOld = sealSecret(secret, [oldKey]);
      const underNew = sealSecret(secret, [newKey_, oldKey]);
      expect(storedForm(underNew)).toEqual({ form: 'v2', keyId: keyId(newKey_) });
      expect(openSecret(underOld, [newKey_, oldKey])).toBe(secret);
      expect(openSecret(underNew, [newKey_, oldKey])).toBe(secret);
      expect(openSecret(underNew, [newKey_])).toBe(secret);
      // The old key alone cannot read what the new one wrote, and says which key it lacks.
      expect(() => openSecret(underNew, [oldKey])).toThrow(
        `key id ${keyId(newKey_)}, which is not in CALLBACK_SECRET_KEY (${keyId(oldKey)} (current))`,
      );
      expect(isUnderCurrentKey(underNew, [newKey_, oldKey])).toBe(true);
      expect(isUnderCurrentKey(underOld, [newKey_, oldKey])).toBe(false);
      expect(isUnderCurrentKey(underOld, [oldKey])).toBe(true);
      expect(isUnderCurrentKey(secret, [oldKey])).toBe(false);
      expect(isUnderCurrentKey(underOld, undefined)).toBe(false);
    });

    it('reads v1 values (no key id) by trying each configured key, and refuses when none opens them', () => {
      const v1 = sealV1(secret, oldKey);
      expect(storedForm(v1)).toEqual({ form: 'v1' });
      expect(isSealed(v1)).toBe(true);
      expect(openSecret(v1, [oldKey])).toBe(secret);
      expect(openSecret(v1, [newKey_, oldKey])).toBe(secret);
      expect(() => openSecret(v1, [newKey_])).toThrow(/enc:v1, without a key id\) cannot be decrypted with any key in CALLBACK_SECRET_KEY/);
      expect(() => openSecret(v1, undefined)).toThrow(/CALLBACK_SECRET_KEY is not set/);
      expect(isUnderCurrentKey(v1, [oldKey])).toBe(false);
    });

    it('signs with both secrets of a secret rotation, each under any configured key, and fails loudly without the key', () => {
      const previous = `whsec_${crypto.randomBytes(32).toString('base64')}`;
      const row = {
        secret: sealSecret(secret, [newKey_, oldKey]),
        previous_secret: sealV1(previous, oldKey),
        previous_secret_expires_at: new Date(Date.now() + 60_000),
      };
      expect(signingSecrets(row, [newKey_, oldKey])).toEqual([secret, previous]);
      expect(() => signingSecrets(row, [newKey_])).toThrow(SecretKeyError);
      expect(() => signingSecrets(row, undefined)).toThrow(SecretKeyError);
      // Once the overlap is over, the previous secret is not needed to sign.
      expect(signingSecrets({ ...row, previous_secret_expires_at: new Date(Date.now() - 1) }, [newKey_])).toEqual([secret]);
    });
  });

  describe('CALLBACK_SECRET_KEY', () => {
    it('is one key or a comma-separated list of keys, current first', () => {
      const [a, b] = [newKey(), newKey()];
      expect(loadConfig({ CALLBACK_SECRET_KEY: a }).CALLBACK_SECRET_KEY).toEqual([a]);
      expect(loadConfig({ CALLBACK_SECRET_KEY: `${a},${b}` }).CALLBACK_SECRET_KEY).toEqual([a, b]);
      expect(loadConfig({ CALLBACK_SECRET_KEY: ` ${a} , ${b} ` }).CALLBACK_SECRET_KEY).toEqual([a, b]);
      expect(loadConfig({}).CALLBACK_SECRET_KEY).toBeUndefined();
    });

    it('refuses anything but 32 bytes of base64, naming the entry but never its value', () => {
      const key = newKey();
      for (const bad of [
        crypto.randomBytes(16).toString('base64'),
        key.slice(0, -2),
        'not base64 at all',
        crypto.randomBytes(32).toString('hex'),
      ]) {
        expect(() => loadConfig({ CALLBACK_SECRET_KEY: bad })).toThrow(ConfigError);
        expect(() => loadConfig({ CALLBACK_SECRET_KEY: bad })).toThrow(/CALLBACK_SECRET_KEY: must be 32 bytes in base64/);
        expect(() => loadConfig({ CALLBACK_SECRET_KEY: `${key},${bad}` })).toThrow(
          /CALLBACK_SECRET_KEY: key 2 of 2: must be 32 bytes in base64/,
        );
      }
      const wrong = crypto.randomBytes(16).toString('base64');
      const refusal = (() => {
        try {
          loadConfig({ CALLBACK_SECRET_KEY: `${key},${wrong}` });
        } catch (err) {
          return (err as Error).message;
        }
      })();
      expect(refusal).toMatch(/key 2 of 2/);
      expect(refusal).not.toContain(wrong);
      expect(refusal).not.toContain(key);
      expect(() => loadConfig({ CALLBACK_SECRET_KEY: `${key},` })).toThrow(/key 2 of 2: empty \(a stray comma\?\)/);
      expect(() => loadConfig({ CALLBACK_SECRET_KEY: `${key},,${newKey()}` })).toThrow(/key 2 of 3: empty/);
    });

    it('refuses the same key twice, even spelt differently', () => {
      const key = newKey();
      expect(() => loadConfig({ CALLBACK_SECRET_KEY: `${key},${newKey()},${key}` })).toThrow(/key 3 is the same key as key 1/);
      // 32 bytes leave 2 unused bits in the last base64 character: another spelling of the same bytes.
      const bytes = Buffer.from(key, 'base64');
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      const last = alphabet.indexOf(key[42]);
      const respelt = `${key.slice(0, 42)}${alphabet[last ^ 1]}=`;
      expect(Buffer.from(respelt, 'base64').equals(bytes)).toBe(true);
      expect(() => loadConfig({ CALLBACK_SECRET_KEY: `${key},${respelt}` })).toThrow(/key 2 is the same key as key 1/);
    });
  });
});
