import crypto from 'node:crypto';
import { Failure } from '../domain/failures';
import { upsertDemoClient } from '../store/api-clients';
import { recordSetting } from '../store/deployment-settings';
import { hashApiKey } from './api-clients';
import type { ServiceDeps } from './deps';

/*
 * The sandbox's shared demonstration key (spec 5.4): one distribution key that anyone trying the
 * API may use to search and read offers and categories. It is derived from a secret the service
 * keeps in its database, so it is the same key every time it is printed, from any process.
 */

export const DEMO_CLIENT_ID = 'cli_demo';

/** Refuses in production: the demonstration key and catalogue belong to the sandbox only. */
export function requireSandbox(deps: Pick<ServiceDeps, 'config'>, what: string): void {
  if (deps.config.SERVICE_ENVIRONMENT !== 'sandbox') throw new Failure('forbidden', `${what} exists only in the sandbox environment`);
}

/** The shared demonstration key (creating its client the first time); the same on every call. */
export async function demoKey(deps: Pick<ServiceDeps, 'db' | 'config'>): Promise<string> {
  requireSandbox(deps, 'the demonstration key');
  // The first writer's secret wins, also between processes asking at once: the key never changes.
  const { value: secret } = await recordSetting(deps.db, 'demo-distribution-key-secret', crypto.randomBytes(32).toString('base64url'));
  const key = `om_test_dist_demo_${crypto.createHmac('sha256', secret).update('demo distribution key').digest('base64url')}`;
  await upsertDemoClient(deps.db, {
    id: DEMO_CLIENT_ID,
    name: 'Shared demonstration key',
    interface: 'distribution',
    environment: 'sandbox',
    key_hash: hashApiKey(key),
    key_prefix: key.slice(0, 16),
    reservations_enabled: false,
    revoked_at: null,
  });
  return key;
}

/** Routes (interface-relative patterns) the demonstration key may call, with GET only: searching and reading. */
const DEMO_READS = new Set(['/offers', '/offers/:id', '/offers/:id/media/:media_id', '/categories']);

/** Why a demonstration client may not make this call, or undefined when it may. */
export function demoRefusal(method: string, routePattern: string | undefined, prefix: string): string | undefined {
  const route = routePattern?.startsWith(prefix) ? routePattern.slice(prefix.length) : routePattern;
  if ((method === 'GET' || method === 'HEAD') && route && DEMO_READS.has(route)) return undefined;
  return 'the shared demonstration key can only search and read offers and categories; get a sandbox key pair of your own (/developer/signup) to place orders, reserve or create accounts';
}
