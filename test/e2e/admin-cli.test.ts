import { spawnSync } from 'node:child_process';
import { ensureGoBinary, TEMPORAL_CLI } from '../../devstack/go-binaries';
import { admin } from '../setup/admin';
import { createHarness, type Harness } from '../setup/harness';
import { seedOffer, validOffer, waitForOfferStatus } from '../setup/fixtures';

describe('admin CLI', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
  });
  afterAll(() => h.close());

  it('keys create prints only the new key, which opens its interface', async () => {
    const res = await admin(['keys', 'create', '--interface', 'distribution', '--name', 'Acme Deals']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^om_test_dist_[A-Za-z0-9_-]{43}\n$/);
    const key = res.stdout.trim();
    const ok = await h.app.inject({ method: 'GET', url: '/distribution/beta/categories', headers: { 'x-service-api-key': key } });
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

  it("orders show finds any client's order with its vouchers and workflow", async () => {
    const { clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId);
    const dist = await h.client('distribution');
    const placed = await h.app.inject({
      method: 'POST',
      url: '/distribution/beta/orders',
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
      workflow_id: expect.stringContaining('support-1'),
    });
    expect(shown.vouchers).toHaveLength(2);
    const missing = await admin(['orders', 'show', 'ord_nope']);
    expect([missing.code, missing.stderr.trim()]).toEqual([1, 'error: no order ord_nope']);
  });

  it('--help describes every command', async () => {
    const help = await admin(['--help']);
    for (const group of ['keys', 'clients', 'offers', 'orders', 'callbacks']) expect(help.stdout).toContain(group);
    expect((await admin(['offers', 'reject', '--help'])).stdout).toMatch(/--reason <text>/);
  });

  it('keys revoke shuts a key out at once', async () => {
    const key = (await admin(['keys', 'create', '--interface', 'submission'])).stdout.trim();
    expect((await admin(['keys', 'revoke', key])).code).toBe(0);
    const res = await h.app.inject({ method: 'GET', url: '/submission/beta/categories', headers: { 'x-service-api-key': key } });
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
          url: '/submission/beta/offers',
          headers: { 'x-service-api-key': key },
          payload: { offer: validOffer() },
        })
      ).json().offer.id as string;
    const statusOf = async (id: string) =>
      (await h.app.inject({ method: 'GET', url: `/submission/beta/offers/${id}`, headers: { 'x-service-api-key': key } })).json().offer;

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
});
