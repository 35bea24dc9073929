import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { withinDeadline } from '../../../services/workflow-outcomes';
import { OFFER_REVIEW_WORKFLOW_TYPE, type OfferReviewWorkflow } from '../../../workflows/offer-review-messages';
import { eventually } from '../../setup/eventually';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';
import { DIST } from '../../setup/paths';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('an order survives a worker killed between taking stock and issuing vouchers', () => {
  let h: Harness;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    // No in-process worker: the child process is the only one at first. The HTTP answer waits
    // through the activity's retry timeout, so give it longer than the production deadline.
    h = await createHarness({ env: { WORKFLOW_ANSWER_TIMEOUT_SECONDS: '120' } });
  });
  afterAll(async () => {
    if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    await h.close();
  });

  it('completes the order once, with the right vouchers and stock, on a new worker', async () => {
    const subClient = (await h.client('submission')).clientId;
    const key = await h.key('distribution');
    const offerId = await seedOffer(h, subClient, { initial_quantity: 5 });
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crash-')), 'paused');
    child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'test', 'setup', 'crash-worker.ts'), marker], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
      // Its own process group: tsx runs the script in a child node process, and both must die.
      detached: true,
    });
    const exited = new Promise((r) => child!.once('exit', r));

    const response = h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': key },
      payload: { order: { order_number: 'crash-1', customer_name: 'Barbara Liskov', items: [{ offer_id: offerId, quantity: 2 }] } },
    });

    const t0 = Date.now();
    const log = (m: string) =>
      process.env.CRASH_TEST_TRACE && process.stderr.write(`[crash] ${((Date.now() - t0) / 1000).toFixed(1)}s ${m}\n`);
    const orderId = await eventually(
      'the worker to pause after taking stock',
      () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : undefined),
      { timeoutMs: 90_000 },
    );
    // The stock is taken inside the open transaction: nothing is visible outside it yet.
    log('paused');
    process.kill(-child.pid!, 'SIGKILL'); // kill -9, the whole worker process group
    await exited;
    const db = h.services.db;
    expect(
      (await db.selectFrom('offers').select('quantity_in_stock').where('id', '=', offerId).executeTakeFirstOrThrow()).quantity_in_stock,
    ).toBe(5);
    expect(await db.selectFrom('orders').select('id').where('id', '=', orderId).executeTakeFirst()).toBeUndefined();

    log('killed');
    await h.startWorker(); // a fresh worker: the activity's retry (after its timeout) places the order
    const res = await response;
    log('answered');
    expect(res.statusCode).toBe(200);
    const order = res.json().order;
    expect(order.id).toBe(orderId);
    expect(order.vouchers).toHaveLength(2);
    expect(new Set(order.vouchers.map((v: { redemption_code: string }) => v.redemption_code)).size).toBe(2);
    expect(
      (await db.selectFrom('offers').select('quantity_in_stock').where('id', '=', offerId).executeTakeFirstOrThrow()).quantity_in_stock,
    ).toBe(3);
    expect(await db.selectFrom('vouchers').select('id').where('offer_id', '=', offerId).execute()).toHaveLength(2);
    expect(await db.selectFrom('orders').select('id').where('order_number', '=', 'crash-1').execute()).toHaveLength(1);
    const events = await db
      .selectFrom('offer_events')
      .select('type')
      .where('offer_id', '=', offerId)
      .where('type', '=', 'offer.stock_changed')
      .execute();
    expect(events).toHaveLength(1);
    // Asking again gives the same order, not a second one.
    const again = await h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': key },
      payload: { order: { order_number: 'crash-1', customer_name: 'Barbara Liskov', items: [{ offer_id: offerId, quantity: 2 }] } },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0].order_id).toBe(orderId);
  });
});

describe('an order whose worker is away', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { WORKFLOW_ANSWER_TIMEOUT_SECONDS: '2' } });
  });
  afterAll(() => h.close());

  it('answers 503 with the order id after the deadline; the order completes when a worker comes, and a retry finds it', async () => {
    const subClient = (await h.client('submission')).clientId;
    const key = await h.key('distribution');
    const offerId = await seedOffer(h, subClient, { initial_quantity: 5 });
    const post = () =>
      h.app.inject({
        method: 'POST',
        url: `${DIST}/orders`,
        headers: { 'x-service-api-key': key },
        payload: { order: { order_number: 'late-1', customer_name: 'Frances Allen', items: [{ offer_id: offerId, quantity: 1 }] } },
      });
    const late = await post();
    expect(late.statusCode).toBe(503);
    const orderId = late.json().errors[0].order_id;
    expect(orderId).toMatch(/^ord_/);
    await h.startWorker();
    const order = await eventually('the order placed by the new worker', async () => {
      const res = await h.app.inject({
        method: 'GET',
        url: `${DIST}/orders?order_number=late-1`,
        headers: { 'x-service-api-key': key },
      });
      return res.json().orders[0];
    });
    expect(order).toMatchObject({ id: orderId, status: 'active' });
    expect(order.vouchers).toHaveLength(1);
    const retry = await post();
    expect(retry.statusCode).toBe(409);
    expect(retry.json().errors[0]).toMatchObject({ code: 'duplicate', order_id: orderId });
  });

  it('aborts the abandoned Temporal call at the deadline, so it does not outlive the answer', async () => {
    // A workflow no worker will ever run: its result never comes, so only the abort ends the call.
    const workflowId = `deadline-test-${crypto.randomUUID()}`;
    let signal: AbortSignal | undefined;
    let call: Promise<unknown> | undefined;
    const temporal = {
      withAbortSignal<R>(s: AbortSignal, fn: () => Promise<R>): Promise<R> {
        signal = s;
        const p = h.services.temporal.withAbortSignal(s, fn);
        call = p;
        return p;
      },
    };
    const answer = withinDeadline(
      temporal,
      () =>
        h.services.temporal.workflow.execute<OfferReviewWorkflow>(OFFER_REVIEW_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: `nobody-polls-${workflowId}`,
          args: [{ offerId: 'off_none', status: 'pending', startDate: '2099-01-01', endDate: '2099-12-31', reviewReminderSeconds: 3600 }],
        }),
      1,
      { message: 'still running' },
    );
    await expect(answer).rejects.toMatchObject({ details: [{ code: 'backend_unavailable' }] });
    expect(signal?.aborted).toBe(true);
    // Without the abort the client would long-poll this workflow's result for as long as the connection lives.
    await expect(Promise.race([call, new Promise((r) => setTimeout(() => r('still pending'), 5_000))])).rejects.toThrow();
    await h.services.temporal.workflow.getHandle(workflowId).terminate('test over');
  });
});
