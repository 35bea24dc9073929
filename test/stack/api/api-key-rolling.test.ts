import crypto from 'node:crypto';
import { adminJson, admin } from '../../setup/admin';
import { eventually } from '../../setup/eventually';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST, SUB } from '../../setup/paths';

/*
 * Keys roll without downtime (docs/decisions/0073-api-key-rolling.md): the new key works at once,
 * the old one until the expiry chosen at the roll, then 401 api_key_expired: at its expiry once the
 * API's key cache has read it again (within API_KEY_CACHE_SECONDS), cached or not.
 */
describe('API key rolling', () => {
  let h: Harness;
  beforeAll(async () => {
    // A cache time shorter than the expiry below: the old key, cached as current before the roll, is read again within it.
    h = await createHarness({ env: { RATE_LIMIT_PER_SECOND: '100' }, fixed: { API_KEY_CACHE_SECONDS: 2 } });
  });
  afterAll(() => h.close());

  const get = (prefix: string, path: string, key: string) =>
    h.app.inject({ method: 'GET', url: `${prefix}${path}`, headers: { 'x-service-api-key': key } });
  const roll = (prefix: string, key: string, payload?: object, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'POST', url: `${prefix}/api_keys/roll`, headers: { 'x-service-api-key': key, ...headers }, payload });

  it('a client rolls its own key: both work, listed with their last use, until the old one expires into a 401 that says so', async () => {
    const old = await h.key('distribution');
    // Used, so cached (2 s) and its use recorded.
    expect((await get(DIST, '/categories', old)).statusCode).toBe(200);
    const rolled = await roll(DIST, old, { api_key: { expires_in_seconds: 4 } });
    expect(rolled.statusCode).toBe(201);
    expect(rolled.headers['cache-control']).toBe('no-store');
    const body = rolled.json();
    const fresh: string = body.api_key.key;
    expect(fresh).toMatch(/^om_test_dist_/);
    expect(body.api_key).toMatchObject({ state: 'current', key_prefix: fresh.slice(0, 16), expires_at: null, last_used_at: null });
    expect(body.rolled_key).toMatchObject({ state: 'rolled', key_prefix: old.slice(0, 16) });
    expect(Date.parse(body.rolled_key.last_used_at)).toBeGreaterThan(0);

    // No downtime: both keys open the interface, as the same client.
    expect((await get(DIST, '/categories', fresh)).statusCode).toBe(200);
    expect((await get(DIST, '/categories', old)).statusCode).toBe(200);
    const listed = (await get(DIST, '/api_keys', fresh)).json().api_keys;
    expect(listed.map((k: { key_prefix: string; state: string }) => [k.key_prefix, k.state])).toEqual([
      [fresh.slice(0, 16), 'current'],
      [old.slice(0, 16), 'rolled'],
    ]);
    expect(listed.every((k: { last_used_at: string | null }) => k.last_used_at !== null)).toBe(true);
    expect(JSON.stringify(listed)).not.toContain(fresh.slice(16));

    // Past its expiry (4 s, plus at most the cache's 2 s) the old key is refused, and says why.
    await eventually('the rolled key to expire', async () => (await get(DIST, '/categories', old)).statusCode === 401, {
      timeoutMs: 10_000,
      intervalMs: 200,
    });
    const refused = (await get(DIST, '/categories', old)).json();
    expect(refused.errors[0].code).toBe('api_key_expired');
    expect((await get(DIST, '/categories', fresh)).statusCode).toBe(200);
    expect((await get(DIST, '/api_keys', fresh)).json().api_keys[1].state).toBe('expired');
  });

  it('the old key keeps working 24 hours by default, 7 days at most', async () => {
    const old = await h.key('submission');
    const before = Date.now();
    const tooLong = await roll(SUB, old, { api_key: { expires_in_seconds: 7 * 86400 + 1 } });
    expect(tooLong.statusCode).toBe(422);
    const rolled = await roll(SUB, old);
    expect(rolled.statusCode).toBe(201);
    const expires = Date.parse(rolled.json().rolled_key.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(86400_000 - 1000);
    expect(expires - before).toBeLessThan(86400_000 + 60_000);
  });

  it('a key rolled away cannot roll again (a leaked key cannot take the client over)', async () => {
    const old = await h.key('submission');
    const fresh = (await roll(SUB, old)).json().api_key.key;
    const again = await roll(SUB, old);
    expect(again.statusCode).toBe(403);
    expect((await get(SUB, '/api_keys', fresh)).json().api_keys).toHaveLength(2);
  });

  it('honours Idempotency-Key once and never replays the new key: the retry is 409 idempotency_key_secret_shown', async () => {
    const old = await h.key('submission');
    const idem = `roll-${crypto.randomUUID()}`;
    const first = await roll(SUB, old, undefined, { 'idempotency-key': idem });
    expect(first.statusCode).toBe(201);
    const fresh: string = first.json().api_key.key;
    const retry = await roll(SUB, old, undefined, { 'idempotency-key': idem });
    expect([retry.statusCode, retry.json().errors[0].code]).toEqual([409, 'idempotency_key_secret_shown']);
    expect(retry.body).not.toContain(fresh);
    expect((await get(SUB, '/api_keys', fresh)).json().api_keys).toHaveLength(2);
    const stored = await h.services.db.selectFrom('idempotency_keys').selectAll().where('key', '=', idem).execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored[0])).not.toContain(fresh);
  });

  it('operators roll with `admin keys roll` and list with `admin keys list`; revoking a rolled key revokes the client', async () => {
    const { key: old, clientId } = await h.client('distribution');
    const rolled = adminJson(await admin(['keys', 'roll', clientId, '--expires-in', 'now']));
    expect(rolled).toMatchObject({ client_id: clientId, rolled_key: { key_prefix: old.slice(0, 16) } });
    expect((await get(DIST, '/categories', old)).json().errors[0].code).toBe('api_key_expired');
    expect((await get(DIST, '/categories', rolled.api_key.key)).statusCode).toBe(200);
    const listed = adminJson(await admin(['keys', 'list', rolled.api_key.key]));
    expect(listed.api_keys.map((k: { state: string }) => k.state)).toEqual(['current', 'expired']);
    expect((await admin(['keys', 'roll', clientId, '--expires-in', '8d'])).code).not.toBe(0);
    expect((await admin(['keys', 'revoke', old])).code).toBe(0);
    const row = await h.services.db.selectFrom('api_clients').select('revoked_at').where('id', '=', clientId).executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    // Four admin CLI processes (npm run admin) on a shared machine.
  }, 300_000);
});
