import { spawnSync } from 'node:child_process';
import { ensureGoBinary, TEMPORAL_CLI } from '../../../infra/local/go-binaries';
import { verifyPassword } from '../../../platform/passwords';
import { admin } from '../../setup/admin';
import { createHarness, type Harness } from '../../setup/harness';
import { seedOffer, validOffer, waitForOfferStatus } from '../../setup/fixtures';
import { eventually } from '../../setup/eventually';
import { OFFER_REVIEW_WORKFLOW_TYPE, type OfferReviewWorkflow } from '../../../workflows/offer-review-messages';
import { offerReviewWorkflowId } from '../../../workflows/shared/ids';
import { RETIRED_WORKFLOW_TYPES } from '../../../workflows/retired-messages';
import { DIST, SUB } from '../../setup/paths';

describe('admin CLI', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(() => h.close());

  it('keys create prints only the new key, which opens its interface', async () => {
    // Through npm, exactly as documented; the other calls run the same CLI in this process (runAdmin).
    const res = await admin(['keys', 'create', '--interface', 'distribution', '--name', 'Acme Deals'], process.env, undefined, {
      viaNpm: true,
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^om_test_dist_[A-Za-z0-9_-]{43}\n$/);
    const key = res.stdout.trim();
    const ok = await h.app.inject({ method: 'GET', url: `${DIST}/categories`, headers: { 'x-service-api-key': key } });
    expect(ok.statusCode).toBe(200);
    const row = await h.services.db.selectFrom('api_clients').selectAll().where('name', '=', 'Acme Deals').executeTakeFirstOrThrow();
    expect(row.key_hash).not.toContain(key);
    expect(JSON.stringify(row)).not.toContain(key.slice(16));
  });

  it('clients list shows clients by key prefix, never their keys', async () => {
    const created = JSON.parse(
      (await admin(['keys', 'create', '--interface', 'distribution', '--name', 'Listed Co', '--reservations', '--json'])).stdout,
    );
    const list = JSON.parse((await admin(['clients', 'list', '--interface', 'distribution'])).stdout);
    const row = list.find((c: { id: string }) => c.id === created.client_id);
    expect(row).toMatchObject({
      name: 'Listed Co',
      interface: 'distribution',
      reservations_enabled: true,
      key_prefix: created.key.slice(0, 16),
    });
    expect(JSON.stringify(list)).not.toContain(created.key);
    expect(list.every((c: { interface: string }) => c.interface === 'distribution')).toBe(true);
  });

  it("orders show finds any client's order with its vouchers, its key and where it was placed", async () => {
    const { clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId);
    const dist = await h.client('distribution');
    const placed = await h.app.inject({
      method: 'POST',
      url: `${DIST}/orders`,
      headers: { 'x-service-api-key': dist.key },
      payload: { order: { order_number: 'support-1', customer_name: 'Ada', items: [{ offer_id: offerId, quantity: 2 }] } },
    });
    const orderId = placed.json().order.id;
    const shown = JSON.parse((await admin(['orders', 'show', orderId])).stdout);
    expect(shown).toMatchObject({
      id: orderId,
      client_id: dist.clientId,
      order_number: 'support-1',
      status: 'active',
      order_key: `order:${dist.clientId}:support-1`,
      intake_workflow_id: expect.stringMatching(/^order-intake:/),
      intake_update_id: expect.stringMatching(/^orders:/),
    });
    expect(shown.vouchers).toHaveLength(2);
    const missing = await admin(['orders', 'show', 'ord_nope']);
    expect([missing.code, missing.stderr.trim()]).toEqual([1, 'error: no order ord_nope']);
  });

  it('--help describes every command', async () => {
    const help = await admin(['--help']);
    for (const group of ['keys', 'clients', 'offers', 'orders', 'callbacks', 'workflows']) expect(help.stdout).toContain(group);
    expect((await admin(['offers', 'reject', '--help'])).stdout).toMatch(/--reason <text>/);
  });

  it('keys revoke shuts a key out at once', async () => {
    const key = (await admin(['keys', 'create', '--interface', 'submission'])).stdout.trim();
    expect((await admin(['keys', 'revoke', key])).code).toBe(0);
    const res = await h.app.inject({ method: 'GET', url: `${SUB}/categories`, headers: { 'x-service-api-key': key } });
    expect(res.statusCode).toBe(401);
  });

  it('refuses bad arguments with a message and a non-zero exit', async () => {
    const res = await admin(['keys', 'create', '--interface', 'marketing']);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/marketing/);
    const res2 = await admin(['keys', 'create', '--interface', 'submission', '--reservations']);
    expect(res2.code).toBe(1);
    expect(res2.stderr).toMatch(/distribution keys only/);
  });

  describe('offers: the review team', () => {
    let key: string;
    beforeAll(async () => {
      key = await h.key('submission');
    });
    const submit = async () =>
      (
        await h.app.inject({
          method: 'POST',
          url: `${SUB}/offers`,
          headers: { 'x-service-api-key': key },
          payload: { offer: validOffer() },
        })
      ).json().offer.id as string;
    const statusOf = async (id: string) =>
      (await h.app.inject({ method: 'GET', url: `${SUB}/offers/${id}`, headers: { 'x-service-api-key': key } })).json().offer;

    it('offers pending lists it; approve prints the new status', async () => {
      const id = await submit();
      const pending = JSON.parse((await admin(['offers', 'pending'])).stdout);
      expect(pending.map((o: { id: string }) => o.id)).toContain(id);
      const res = await admin(['offers', 'approve', id, '--reviewer', 'Ana']);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual({ id, status: 'approved' });
      expect((await statusOf(id)).status).toBe('approved');
      const again = await admin(['offers', 'approve', id]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/only a pending offer/);
    });

    it('reject needs a reason, which the advertiser then sees', async () => {
      const id = await submit();
      expect((await admin(['offers', 'reject', id])).code).not.toBe(0);
      const res = await admin(['offers', 'reject', id, '--reason', 'Fine print is missing the expiry']);
      expect(JSON.parse(res.stdout)).toEqual({ id, status: 'rejected' });
      expect((await statusOf(id)).rejection_reason).toBe('Fine print is missing the expiry');
    });

    it('the documented `temporal workflow signal` line approves an offer too', async () => {
      const id = await submit();
      const temporal = await ensureGoBinary(TEMPORAL_CLI);
      const res = spawnSync(
        temporal,
        [
          'workflow',
          'signal',
          '--address',
          process.env.TEMPORAL_ADDRESS!,
          '--workflow-id',
          `offer-review:${id}`,
          '--name',
          'approve',
          '--input',
          '{"reviewer":"Ana"}',
        ],
        { encoding: 'utf8', timeout: 30_000 },
      );
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      await waitForOfferStatus(h, id, 'approved');
    });
  });

  it('workflows stuck lists a workflow whose activity keeps failing, with its attempt and last failure, until it is terminated', async () => {
    // A review for an offer that is not in the database: closing it fails (no such row) on every
    // attempt, a fault retrying cannot fix but no refusal either: genuinely stuck.
    const offerId = `ofr_ghost${process.pid}${Date.now()}`;
    const workflowId = offerReviewWorkflowId(offerId);
    const handle = await h.services.temporal.workflow.start<OfferReviewWorkflow>(OFFER_REVIEW_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: h.config.TEMPORAL_TASK_QUEUE,
      args: [{ offerId, status: 'approved', startDate: '2019-12-01', endDate: '2020-01-01', reviewReminderSeconds: 3600 }],
    });
    const attempt = async () => (await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? 0;
    await eventually('the closing step to fail twice', async () => (await attempt()) > 2, { timeoutMs: 30_000 });

    const listed = await admin(['workflows', 'stuck', '--attempts', '2', '--json']);
    expect(listed.code).toBe(0);
    const stuck = JSON.parse(listed.stdout).workflows.find((w: { workflow_id: string }) => w.workflow_id === workflowId);
    expect(stuck).toMatchObject({
      type: OFFER_REVIEW_WORKFLOW_TYPE,
      reasons: ['activity_retrying'],
      due_by: null, // an offer's review has no age limit
      pending_activity: 'recordOfferStatus',
      attempt: expect.any(Number),
      last_failure: expect.stringMatching(/no result/i),
    });
    expect(stuck.attempt).toBeGreaterThan(2);
    const table = await admin(['workflows', 'stuck', '--attempts', '2']);
    expect(table.stdout).toMatch(
      new RegExp(`^${workflowId}\\s+offerReviewWorkflow\\s+\\S+\\s+activity_retrying\\s+recordOfferStatus`, 'm'),
    );
    // Above the default threshold it is not (yet) stuck.
    expect((await admin(['workflows', 'stuck', '--attempts', '50', '--json'])).stdout).not.toContain(workflowId);

    const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^workflows_stuck\{type="orderCancellationWorkflow"\} \d+$/m);

    // What docs/operations.md tells an operator to do with one that cannot be repaired.
    await handle.terminate('stuck: its offer does not exist');
    expect((await admin(['workflows', 'stuck', '--attempts', '2', '--json'])).stdout).not.toContain(workflowId);
  }, 90_000);

  it('workflows retired lists the open runs of a type this release no longer runs, until they end (the upgrade check of docs/deployment.md)', async () => {
    // A run an older release left open: no worker of this release has its code (nobody polls this queue).
    const [type] = Object.keys(RETIRED_WORKFLOW_TYPES);
    const workflowId = `order:cli_retired:${process.pid}-${Date.now()}`;
    const handle = await h.services.temporal.workflow.start(type, { workflowId, taskQueue: `retired-${process.pid}`, args: [{}] });
    const listed = async () => JSON.parse((await admin(['workflows', 'retired'])).stdout).runs as Array<{ workflow_id: string }>;
    const run = await eventually('the retired run listed', async () => (await listed()).find((r) => r.workflow_id === workflowId));
    expect(run).toMatchObject({ type, run_id: handle.firstExecutionRunId, replaced_by: expect.stringMatching(/orderIntakeWorkflow/) });
    await handle.terminate('left by an older release');
    await eventually('the ended run gone from the list', async () => !(await listed()).some((r) => r.workflow_id === workflowId));
  }, 60_000);

  describe('ops users: review-console operators without a restart', () => {
    const [ana, bo] = [`ana-${process.pid}`, `bo-${process.pid}`];
    const [anaPassword, boPassword] = ['ana console password 1', 'bo console password 22'];
    const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    const consoleAs = async (user?: string, pass?: string) =>
      (await h.app.inject({ method: 'GET', url: '/ops', headers: user ? { authorization: basic(user, pass!) } : {} })).statusCode;
    afterAll(() => h.services.db.deleteFrom('operators').where('name', 'in', [ana, bo]).execute());

    it('add (password piped, printed nowhere), list, sign in to /ops at once, remove, refused at once', async () => {
      // Refused before being added: 401, or 503 while the operators table is empty (the console closed).
      expect([401, 503]).toContain(await consoleAs(ana, anaPassword));
      const added = await admin(['ops', 'users', 'add', ana], process.env, `${anaPassword}\n`);
      expect([added.code, JSON.parse(added.stdout)]).toEqual([0, { added: ana }]);
      expect(added.stdout + added.stderr).not.toContain(anaPassword);
      const row = await h.services.db.selectFrom('operators').selectAll().where('name', '=', ana).executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^scrypt:32768:8:1:/);
      await expect(verifyPassword(anaPassword, row.password_hash)).resolves.toBe(true);
      expect((await admin(['ops', 'users', 'add', bo, '--password-stdin'], process.env, boPassword)).code).toBe(0);

      // The same running app: no restart between the CLI and the console.
      expect([await consoleAs(ana, anaPassword), await consoleAs(bo, boPassword)]).toEqual([200, 200]);
      expect([await consoleAs(), await consoleAs(ana, boPassword), await consoleAs('nobody', anaPassword)]).toEqual([401, 401, 401]);

      const list = await admin(['ops', 'users', 'list']);
      expect(JSON.parse(list.stdout)).toEqual(
        expect.arrayContaining([
          { name: ana, created_at: expect.any(String) },
          { name: bo, created_at: expect.any(String) },
        ]),
      );
      expect(list.stdout).not.toContain('scrypt');

      const again = await admin(['ops', 'users', 'add', ana], process.env, 'another password 333\n');
      expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/exists already/)]);
      const short = await admin(['ops', 'users', 'add', `cy-${process.pid}`], process.env, 'short\n');
      expect([short.code, short.stderr]).toEqual([1, expect.stringMatching(/12 characters/)]);

      expect(JSON.parse((await admin(['ops', 'users', 'remove', ana])).stdout)).toEqual({ removed: ana });
      // Refused at once, though the console remembered ana's sign-in a moment ago; bo still signs in.
      expect([await consoleAs(ana, anaPassword), await consoleAs(bo, boPassword)]).toEqual([401, 200]);
      const gone = await admin(['ops', 'users', 'remove', ana]);
      expect([gone.code, gone.stderr.trim()]).toEqual([1, `error: operator ${ana} not found`]);
      expect((await admin(['ops', 'users', 'remove', bo])).code).toBe(0);
      expect([401, 503]).toContain(await consoleAs(bo, boPassword));
    }, 180_000);
  });
});
