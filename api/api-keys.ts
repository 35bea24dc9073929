import crypto from 'node:crypto';

import type { ApiInterface, ServiceEnvironment } from '../domain/environment';

export type { ApiInterface, ServiceEnvironment };

/**
 * Keys carry their environment and interface in a readable prefix (as Stripe's `sk_test_` does),
 * so a misplaced key is recognisable in a log; the secret part is 32 random bytes.
 */
export function generateApiKey(environment: ServiceEnvironment, iface: ApiInterface): string {
  const env = environment === 'production' ? 'live' : 'test';
  const kind = iface === 'submission' ? 'sub' : 'dist';
  return `om_${env}_${kind}_${crypto.randomBytes(32).toString('base64url')}`;
}

/** Keys are high-entropy random strings, so a fast hash is enough to store them safely. */
export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}
