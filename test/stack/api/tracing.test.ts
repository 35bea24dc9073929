import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seedOffer } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { createHarness, type Harness } from '../../setup/harness';
import { startTracing } from '../../../platform/tracing';
import { DIST } from '../../setup/paths';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  scope: string;
}

/** An OTLP/HTTP collector on loopback: keeps every span of every JSON export it receives. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; paths: string[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const doc = JSON.parse(body) as {
        resourceSpans: { scopeSpans: { scope: { name: string }; spans: Omit<ExportedSpan, 'scope'>[] }[] }[];
      };
      for (const rs of doc.resourceSpans)
        for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, scope: ss.scope.name });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    paths,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('OpenTelemetry traces', () => {
  let h: Harness;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  beforeAll(async () => {
    collector = await startCollector();
    // The worker bundles its workflows at start here (with the SDK's workflow interceptors): slower.
    h = await createHarness({ worker: true, env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
  }, 180_000);
  afterAll(async () => {
    await h?.close();
    await collector?.close();
  });

  it('are off unless an OTLP endpoint is configured', () => {
    expect(startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
  });

  it('follow an order from the API through its intake Update to the placing activity, in one trace', async () => {
    const { clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId, { initial_quantity: 5 });
    const res = await h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': await h.key('distribution') },
      payload: { order: { order_number: 'traced-1', customer_name: 'Ada', items: [{ offer_id: offerId, quantity: 1 }] } },
    });
    expect(res.statusCode).toBe(200);

    const apiSpan = () => collector.spans.find((s) => s.name === 'POST /distribution/beta/orders');
    const inTrace = () => collector.spans.filter((s) => s.traceId === apiSpan()?.traceId);
    const complete = () => {
      const names = inTrace().map((s) => s.name);
      return names.some((n) => n.startsWith('RunActivity:placeOrderBatch')) && names.some((n) => n.startsWith('HandleUpdate:placeOrders'));
    };
    // Workflow spans leave the worker through a sink after each activation: poll, flushing.
    await eventually('the API, workflow and activity spans of one trace', async () => {
      await h.services.tracing!.flush();
      return complete();
    });
    expect(collector.paths.every((p) => p === '/v1/traces')).toBe(true);
    const api = apiSpan();
    expect(api).toBeDefined();
    expect(api!.parentSpanId ?? '').toBe('');
    const names = inTrace().map((s) => s.name);
    // The API's Temporal call (the Update-with-Start to the order's shard), the workflow's handling
    // of the Update, and the placing batch: scheduled by the run's loop, in this trace because this
    // order (the first of its shard) started the run.
    expect(names).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^UpdateWithStartWorkflow:placeOrders/),
        expect.stringMatching(/^HandleUpdate:placeOrders/),
        expect.stringMatching(/^StartActivity:placeOrderBatch/),
        expect.stringMatching(/^RunActivity:placeOrderBatch/),
      ]),
    );
    // Linked, not merely sharing an id: the API's request is the parent of its Temporal call, and
    // the workflow's scheduling of the batch the parent of the batch's run. (The intake run's own
    // span ends only when the run does.)
    const span = (re: RegExp) => inTrace().find((s) => re.test(s.name))!;
    expect(span(/^UpdateWithStartWorkflow:/).parentSpanId).toBe(api!.spanId);
    expect(span(/^RunActivity:placeOrderBatch/).parentSpanId).toBe(span(/^StartActivity:placeOrderBatch/).spanId);
  }, 60_000);
});
