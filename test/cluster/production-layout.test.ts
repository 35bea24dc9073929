import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { ensureGoBinary, TEMPORAL_CLI } from '../../infra/local/go-binaries';
import { offerReviewWorkflowId } from '../../workflows/shared/ids';
import { admin, adminJson } from '../setup/admin';
import { CallbackReceiver } from '../setup/callback-receiver';
import { eventually } from '../setup/eventually';
import { validOffer } from '../setup/fixtures';
import { createHarness, type Harness } from '../setup/harness';
import { DIST, SUB } from '../setup/paths';
import { startServiceProcess, testTaskQueue, type ServiceProcess } from '../setup/service-process';

const run = promisify(execFile);
/** Two service processes start at once on a shared 2-core machine, the worker loading its workflow bundle. */
const STARTUP_MS = 240_000;

/**
 * The production layout of docs/deployment.md on a real Temporal cluster (the lane's global setup:
 * four server processes, mTLS at the frontend and between the services, Postgres for both stores):
 * an API process and a worker process, each connected through Temporal's environment variables
 * (TEMPORAL_ADDRESS and the TEMPORAL_TLS_* files), and an operator with the Temporal CLI and the same
 * variables.
 */
describe('the production layout on a real Temporal cluster over mTLS', () => {
  let api: ServiceProcess;
  let worker: ServiceProcess;
  let h: Harness;
  let temporal: string;
  const receiver = new CallbackReceiver();
  const taskQueue = testTaskQueue();

  beforeAll(async () => {
    const env = { TEMPORAL_TASK_QUEUE: taskQueue };
    [api, worker, temporal] = await Promise.all([
      startServiceProcess('api', env, STARTUP_MS - 20_000),
      startServiceProcess('worker', env, STARTUP_MS - 20_000),
      ensureGoBinary(TEMPORAL_CLI),
    ]);
    // Keys and checks against the same database (the harness runs no worker).
    h = await createHarness({ env });
    await receiver.start();
  }, STARTUP_MS);

  afterAll(async () => {
    await h?.services.db.updateTable('callback_endpoints').set({ status: 'disabled', disabled_reason: 'test over' }).execute();
    await Promise.all([api?.stop(), worker?.stop(), receiver.stop()]);
    await h?.close();
  });

  /** The Temporal CLI as an operator runs it, with the cluster's TEMPORAL_* variables (`env` over them). */
  const temporalCli = (args: string[], env: NodeJS.ProcessEnv = process.env) => run(temporal, args, { env });
  const call = async (key: string, method: string, path: string, body?: object) => {
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers: { 'x-service-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  it('connects both processes over mTLS, and the cluster refuses a client without a certificate', async () => {
    for (const p of [api, worker]) expect(p.output()).toContain(`${process.env.TEMPORAL_ADDRESS}, namespace default, mTLS`);
    expect(worker.output()).toContain('worker: running');
    expect(api.output()).not.toContain('worker: running');
    const { TEMPORAL_TLS_CLIENT_CERT_PATH: _c, TEMPORAL_TLS_CLIENT_KEY_PATH: _k, ...noCertificate } = process.env;
    await expect(temporalCli(['workflow', 'count'], noCertificate)).rejects.toThrow();
    await expect(temporalCli(['workflow', 'count'])).resolves.toMatchObject({ stdout: expect.stringMatching(/Total: \d+/) });
  });

  it('an offer approved through the Temporal CLI calls its advertiser back; a publisher finds it, orders, and the voucher is redeemed', async () => {
    const sub = await h.key('submission');
    const dist = await h.key('distribution');
    const city = `Clustertown ${crypto.randomUUID().slice(0, 8)}`;
    const location = { address_line_1: '1 Main St', city, state_code: 'NY', postal_code: '10118', country_code: 'US' };
    const created = await call(sub, 'POST', `${SUB}/offers`, {
      offer: validOffer({ initial_quantity: 5, advertiser: { ...(validOffer().advertiser as object), redemption_locations: [location] } }),
    });
    expect(created.status).toBe(200);
    const offerId: string = created.json.offer.id;
    expect(created.json.offer.status).toBe('pending');
    const env = { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue };
    adminJson(await admin(['callbacks', 'set', '--key', sub, '--url', receiver.url, '--json'], env));

    // The operator's approval: the review workflow's `approve` signal, sent with the Temporal CLI over mTLS.
    await temporalCli([
      'workflow',
      'signal',
      '--workflow-id',
      offerReviewWorkflowId(offerId),
      '--name',
      'approve',
      '--input',
      '{"reviewer":"Ops"}',
    ]);
    const [callback] = await receiver.waitFor(1, 60_000);
    expect(callback.json).toMatchObject({ type: 'offer.status_changed', data: { old_status: 'pending', new_status: 'approved' } });
    expect(callback.json.data.offer).toMatchObject({ id: offerId, status: 'approved' });

    const found = await eventually('the approved offer in the search', async () => {
      const r = await call(dist, 'GET', `${DIST}/offers?city=${encodeURIComponent(city)}`);
      return r.status === 200 && r.json.offers.length > 0 && r.json;
    });
    expect(found.offers.map((o: { id: string }) => o.id)).toEqual([offerId]);

    const placed = await call(dist, 'POST', `${DIST}/orders`, {
      order: { order_number: `cluster-${offerId}`, customer_name: 'Ada Lovelace', items: [{ offer_id: offerId, quantity: 2 }] },
    });
    expect(placed.status).toBe(200);
    expect(placed.json.order.vouchers).toHaveLength(2);
    const voucher = placed.json.order.vouchers[0];
    const redeemed = await call(sub, 'PUT', `${SUB}/offers/${offerId}/vouchers/${voucher.id}`, { voucher: { status: 'redeemed' } });
    expect(redeemed.status).toBe(200);
    expect(redeemed.json.voucher.status).toBe('redeemed');

    // The worker process placed the order (it counts what it placed), and the workflow is on the cluster.
    const metrics = await (await fetch(`${worker.url}/metrics`)).text();
    expect(Number(/^orders_placed_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    const described = await temporalCli(['workflow', 'describe', '--workflow-id', offerReviewWorkflowId(offerId), '-o', 'json']);
    expect(JSON.parse(described.stdout).workflowExecutionInfo.taskQueue).toBe(taskQueue);
  });
});
