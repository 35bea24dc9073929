import { revokeApiKey } from '../../../services/api-clients';
import { eventually } from '../../setup/eventually';
import { createHarness, type Harness } from '../../setup/harness';
import { SUB } from '../../setup/paths';

/*
 * The API trusts a key it has checked for API_KEY_CACHE_SECONDS (fewer queries per request); a
 * revoked key must stop working within that time, and a new key must work at once.
 */
describe('API key cache', () => {
  let h: Harness;
  beforeAll(async () => {
    // A short cache time to wait out; a rate limit the polling below stays under.
    h = await createHarness({ env: { RATE_LIMIT_PER_SECOND: '100' }, fixed: { API_KEY_CACHE_SECONDS: 1 } });
  });
  afterAll(() => h.close());

  const categories = (key: string) => h.app.inject({ method: 'GET', url: `${SUB}/categories`, headers: { 'x-service-api-key': key } });

  it('a revoked key stops working within the cache time; a new key works at once', async () => {
    const key = await h.key('submission');
    expect((await categories(key)).statusCode).toBe(200);
    await revokeApiKey(h.services, key);
    // Within a second the key may still be taken from the cache; after it, never (the bound leaves
    // room for a loaded machine).
    await eventually('the revoked key to be refused', async () => (await categories(key)).statusCode === 401, {
      timeoutMs: 3_000,
      intervalMs: 100,
    });
    expect((await categories(await h.key('submission'))).statusCode).toBe(200);
  });

  it('an unused key revoked is refused at once (unknown keys are never cached)', async () => {
    const key = await h.key('submission');
    await revokeApiKey(h.services, key);
    expect((await categories(key)).statusCode).toBe(401);
  });
});
