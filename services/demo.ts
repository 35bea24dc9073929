import crypto from 'node:crypto';
import { Failure } from '../domain/failures';
import { findLiveClientBy, insertApiClientOnce, upsertDemoClient } from '../store/api-clients';
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

/** The demonstration key, derived from the deployment's secret (recorded the first time). */
async function derivedDemoKey(deps: Pick<ServiceDeps, 'db'>): Promise<string> {
  // The first writer's secret wins, also between processes asking at once: the key never changes.
  const { value: secret } = await recordSetting(deps.db, 'demo-distribution-key-secret', crypto.randomBytes(32).toString('base64url'));
  return `om_test_dist_demo_${crypto.createHmac('sha256', secret).update('demo distribution key').digest('base64url')}`;
}

const demoClient = (key: string) => ({
  id: DEMO_CLIENT_ID,
  name: 'Shared demonstration key',
  interface: 'distribution' as const,
  environment: 'sandbox' as const,
  key_hash: hashApiKey(key),
  key_prefix: key.slice(0, 16),
  reservations_enabled: false,
  revoked_at: null,
});

/** The shared demonstration key (creating its client the first time, reviving it if revoked); the same on every call. */
export async function demoKey(deps: Pick<ServiceDeps, 'db' | 'config'>): Promise<string> {
  requireSandbox(deps, 'the demonstration key');
  const key = await derivedDemoKey(deps);
  await upsertDemoClient(deps.db, demoClient(key));
  return key;
}

/**
 * The demonstration key as the sandbox's pages show it (the sign-up page, the API reference):
 * undefined outside the sandbox, and while an operator has it revoked. Unlike `admin keys demo`,
 * showing it never revives a revoked key: a page view must not undo an operator's decision.
 */
export async function publishedDemoKey(deps: Pick<ServiceDeps, 'db' | 'config'>): Promise<string | undefined> {
  if (deps.config.SERVICE_ENVIRONMENT !== 'sandbox') return undefined;
  const key = await derivedDemoKey(deps);
  await insertApiClientOnce(deps.db, { ...demoClient(key), demo: true });
  return (await findLiveClientBy(deps.db, { keyHash: hashApiKey(key) })) ? key : undefined;
}

/** What the demonstration key may do, in words, for the pages that show it. */
export const DEMO_KEY_MAY =
  'search and read offers and categories on the distribution interface (GET /offers, /offers/:id, /offers/:id/media/:media_id, /categories); ' +
  'it cannot order, reserve or create accounts';

/** Routes (interface-relative patterns) the demonstration key may call, with GET only: searching and reading. */
const DEMO_READS = new Set(['/offers', '/offers/:id', '/offers/:id/media/:media_id', '/categories']);

/** Why a demonstration client may not make this call, or undefined when it may. */
export function demoRefusal(method: string, routePattern: string | undefined, prefix: string): string | undefined {
  const route = routePattern?.startsWith(prefix) ? routePattern.slice(prefix.length) : routePattern;
  if ((method === 'GET' || method === 'HEAD') && route && DEMO_READS.has(route)) return undefined;
  return 'the shared demonstration key can only search and read offers and categories; get a sandbox key pair of your own (/developer/signup) to place orders, reserve or create accounts';
}
