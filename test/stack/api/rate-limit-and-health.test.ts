import crypto from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../../api/app';
import { rateLimitPlugin } from '../../../api/plugins/rate-limit';
import { loadConfig } from '../../../platform/config';
import { createLogger } from '../../../platform/logger';
import { connectServices } from '../../../main';
import { resolveEndpoints } from '../../../platform/endpoints';
import type { RateLimitCounts } from '../../../services/deps';
import { createRateLimitCounts } from '../../../store/rate-limits';
import { eventually } from '../../setup/eventually';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

describe('rate limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_SECOND: '3' } });
  });
  afterAll(() => h.close());

  it('answers a burst over the per-key limit with 429 and Retry-After, without slowing other keys', async () => {
    const [a, b] = [await h.key('distribution'), await h.key('distribution')];
    const hit = (key: string) => h.app.inject({ method: 'GET', url: `${DIST}/categories`, headers: { 'x-service-api-key': key } });
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

describe('rate limit of requests with a bad or missing key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { RATE_LIMIT_PER_SECOND: '3' } });
  });
  afterAll(() => h.close());

  const guess = (remoteAddress: string, key?: string) =>
    h.app.inject({
      method: 'GET',
      url: `${DIST}/categories`,
      remoteAddress,
      headers: key === undefined ? {} : { 'x-service-api-key': key },
    });

  it('answers guessed keys from one address with 429 and Retry-After once over the limit, before looking keys up', async () => {
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await guess('198.51.100.7', `om_test_dist_guess_${i}`));
    const codes = answers.map((r) => r.statusCode);
    // Each key is new, so a per-key count would never stop them: the address is counted.
    expect(codes.slice(0, 3)).toEqual([401, 401, 401]);
    expect(codes.filter((c) => c === 401).length).toBeLessThanOrEqual(6); // at most one window boundary crossed
    const limited = answers.filter((r) => r.statusCode === 429);
    expect(limited.length).toBeGreaterThanOrEqual(20);
    expect(Number(limited[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited[0].json()).toMatchObject({ status: 'ERROR', errors: [{ code: 'rate_limited' }] });
    // Requests without any key count the same way.
    const missing = [];
    for (let i = 0; i < 10; i++) missing.push((await guess('198.51.100.8')).statusCode);
    expect(missing.slice(0, 3)).toEqual([401, 401, 401]);
    expect(missing.filter((c) => c === 429).length).toBeGreaterThanOrEqual(4);
  });
});

/** The plugin alone, on counts of its own (as each API process has), a route standing in for the key check. */
async function limitedApp(counts: RateLimitCounts, windowMs?: number): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(async (scope) => {
    await rateLimitPlugin(scope, { perSecond: 3, counts, windowMs });
    scope.get('/categories', async (request, reply) => (request.headers['x-service-api-key'] === GOOD ? 'ok' : reply.code(401).send()));
  });
  await app.ready();
  return app;
}

const GOOD = 'om_test_dist_good';
const databaseUrl = () => resolveEndpoints(loadConfig(process.env)).databaseUrl;
const call = (app: FastifyInstance, remoteAddress: string, key: string) =>
  app.inject({ method: 'GET', url: '/categories', remoteAddress, headers: { 'x-service-api-key': key } });

describe('rate limit window of an address', () => {
  // A window shorter than the service's second, so the test can wait for it to pass.
  const WINDOW_MS = 300;
  let counts: RateLimitCounts;
  let app: FastifyInstance;
  beforeAll(async () => {
    counts = createRateLimitCounts(databaseUrl(), createLogger('silent'));
    app = await limitedApp(counts, WINDOW_MS);
  });
  afterAll(async () => {
    await app.close();
    await counts.close();
  });

  it('leaves other addresses, and the same address after the window, untouched', async () => {
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await call(app, '198.51.100.9', `om_test_dist_guess_${i}`)).statusCode);
    expect(codes).toEqual([401, 401, 401, 429]);
    // Over its budget, the address is refused even a good key, until the window passes.
    const limited = await call(app, '198.51.100.9', GOOD);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().message).toBe(
      `rate limit of 3 requests with a bad or missing API key per ${WINDOW_MS} ms exceeded; retry after 1 s`,
    );
    expect((await call(app, '198.51.100.10', GOOD)).statusCode).toBe(200);
    await eventually(
      'the address to be served again after its window',
      async () => (await call(app, '198.51.100.9', GOOD)).statusCode === 200,
      {
        timeoutMs: WINDOW_MS + 2_000,
        intervalMs: 100,
      },
    );
  });
});

describe('rate limit shared by API processes', () => {
  // Two apps, each with its own connections to the one Postgres, as two API processes have.
  let counts: RateLimitCounts[];
  let apps: FastifyInstance[];
  beforeAll(async () => {
    counts = [0, 1].map(() => createRateLimitCounts(databaseUrl(), createLogger('silent')));
    apps = await Promise.all(counts.map((c) => limitedApp(c, 60_000)));
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const c of counts) await c.close();
  });

  it('counts a key and an address once across both', async () => {
    const key = `om_test_dist_shared_${crypto.randomUUID()}`;
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await call(apps[i % 2], '198.51.100.11', key)).statusCode);
    // The per-key budget (3) is passed on the fourth request, wherever it lands; each app counting
    // alone would have answered all four.
    expect(codes.slice(0, 3)).toEqual([401, 401, 401]);
    expect(codes[3]).toBe(429);
    const refused = await call(apps[0], '198.51.100.11', GOOD);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(50);
  });
});

describe('rate limit with the database away', () => {
  it('lets requests through, warning once, rather than refusing them', async () => {
    const lines: string[] = [];
    const log = createLogger('warn', { stream: { write: (line: string) => void lines.push(line) } });
    const counts = createRateLimitCounts('postgres://nobody:x@127.0.0.1:1/none', log);
    const app = await limitedApp(counts);
    try {
      const codes = [];
      for (let i = 0; i < 6; i++) codes.push((await call(app, '198.51.100.12', i % 2 ? GOOD : 'om_test_dist_guess')).statusCode);
      // Nothing counted: every guess reaches the key check, every good key is served.
      expect(codes).toEqual([401, 200, 401, 200, 401, 200]);
      const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
      expect(warnings.map((w) => w.msg)).toEqual(['rate limit: the database does not answer; requests are not counted meanwhile']);
    } finally {
      await app.close();
      await counts.close();
    }
  });
});

describe('rate limit rows', () => {
  it('are deleted once their window ended over a minute ago, live ones kept', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
    const id = crypto.randomUUID();
    // A row as the library writes it (key prefix `rl:`), whose window ended two minutes ago.
    await pool.query('insert into rate_limits (key, points, expire) values ($1, 1, $2)', [`rl:stale-${id}`, Date.now() - 120_000]);
    const counts = createRateLimitCounts(databaseUrl(), createLogger('silent'), { sweepEveryMs: 100 });
    const rows = async (key: string) => (await pool.query('select points from rate_limits where key = $1', [`rl:${key}`])).rows;
    try {
      await counts.hit(`live-${id}`, 60_000); // the first count starts the sweeps
      await eventually('the stale row to be deleted', async () => (await rows(`stale-${id}`)).length === 0, {
        timeoutMs: 5_000,
        intervalMs: 50,
      });
      expect(await rows(`live-${id}`)).toEqual([{ points: 1 }]);
    } finally {
      await counts.close();
      await pool.end();
    }
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
