import { buildApp } from '../../api/app';
import { loadConfig } from '../../infra/config';
import { createLogger } from '../../infra/logger';
import { connectServices } from '../../infra/services';
import { resolveEndpoints } from '../../infra/stack';
import { createHarness, type Harness } from '../setup/harness';

describe('rate limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_SECOND: '3' } });
  });
  afterAll(() => h.close());

  it('answers a burst over the per-key limit with 429 and Retry-After, without slowing other keys', async () => {
    const [a, b] = [await h.key('distribution'), await h.key('distribution')];
    const hit = (key: string) =>
      h.app.inject({ method: 'GET', url: '/distribution/beta/categories', headers: { 'x-service-api-key': key } });
    const burst = await Promise.all([hit(a), hit(a), hit(a), hit(a), hit(a)]);
    const codes = burst.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 200, 200, 429, 429]);
    const limited = burst.find((r) => r.statusCode === 429)!;
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json()).toMatchObject({ status: 'ERROR', errors: [{ code: 'rate_limited' }] });
    const other = await hit(b);
    expect(other.statusCode).toBe(200);
    // Every answer tells the client where it stands.
    expect(other.headers['x-ratelimit-limit']).toBe('3');
    expect(Number(other.headers['x-ratelimit-remaining'])).toBe(2);
    expect(Number(other.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(0);
  });
});

describe('health with a backend down', () => {
  it('answers 503 naming the backend that does not answer', async () => {
    const config = loadConfig(process.env);
    const endpoints = { ...resolveEndpoints(config), databaseUrl: 'postgres://nobody:x@127.0.0.1:1/none' };
    const services = await connectServices(config, endpoints, createLogger('silent'));
    const app = await buildApp(services);
    try {
      const res = await app.inject({ method: 'GET', url: '/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        status: 'ERROR',
        checks: { postgres: 'down', temporal: 'up', object_store: 'up' },
        errors: [{ code: 'backend_unavailable', backend: 'postgres' }],
      });
    } finally {
      await app.close();
      await services.close();
    }
  });
});
