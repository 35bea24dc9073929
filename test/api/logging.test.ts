import { Writable } from 'node:stream';
import pino from 'pino';
import { buildApp } from '../../api/app';
import { createApiKey } from '../../services/api-clients';
import { loadConfig } from '../../platform/config';
import { connectServices } from '../../main/wiring';
import { resolveEndpoints } from '../../platform/endpoints';

describe('structured request logs', () => {
  it('carry request id, client id, route, status and latency — and never the key', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    const config = loadConfig(process.env);
    const services = await connectServices(config, resolveEndpoints(config), pino({ level: 'info' }, sink));
    const app = await buildApp(services);
    try {
      const { key, clientId } = await createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
      const res = await app.inject({ method: 'GET', url: '/submission/beta/categories?per_page=3', headers: { 'x-service-api-key': key } });
      const bad = await app.inject({ method: 'GET', url: '/submission/beta/offers/ofr_unknown', headers: { 'x-service-api-key': key } });
      await new Promise((r) => setImmediate(r));
      const done = lines.filter((l) => l.msg === 'request completed');
      expect(done).toContainEqual(
        expect.objectContaining({
          reqId: res.headers['x-request-id'],
          client_id: clientId,
          method: 'GET',
          route: '/submission/beta/categories',
          status: 200,
          latency_ms: expect.any(Number),
        }),
      );
      expect(done).toContainEqual(
        expect.objectContaining({ reqId: bad.headers['x-request-id'], route: '/submission/beta/offers/:id', status: 404 }),
      );
      expect(bad.json().request_id).toBe(bad.headers['x-request-id']);
      expect(JSON.stringify(lines)).not.toContain(key);
    } finally {
      await app.close();
      await services.close();
    }
  });
});
