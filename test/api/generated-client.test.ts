import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import createClient from 'openapi-fetch';
import type { paths as DeveloperPaths } from '../../clients/developer';
import type { paths as DistributionPaths } from '../../clients/distribution';
import type { paths as SubmissionPaths } from '../../clients/submission';
import { sendReviewDecision, waitForStatusChange } from '../../services/review';
import { validOffer } from '../setup/fixtures';
import { createHarness, type Harness } from '../setup/harness';

const ROOT = path.resolve(__dirname, '..', '..');
const INTERFACES = ['submission', 'distribution', 'developer'] as const;
type NewOffer = NonNullable<SubmissionPaths['/offers']['post']['requestBody']>['content']['application/json']['offer'];

/*
 * What an integrator does: generate types from the published document with openapi-typescript,
 * call the API with openapi-fetch. The types are committed in clients/ so that `tsc` checks the
 * calls below against them; the first test keeps them equal to what the served documents generate.
 */
describe('generated TypeScript clients', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => h.close());

  it('clients/ holds the types the served documents generate (UPDATE_CLIENT_TYPES=1 rewrites them)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
    for (const iface of INTERFACES) {
      const doc = await fetch(`${base}/${iface}/beta/openapi.json`);
      expect(doc.status).toBe(200);
      fs.writeFileSync(path.join(dir, `${iface}.json`), await doc.text());
      // openapi-typescript is an ES module: it runs as the integrator runs it, from its CLI.
      execFileSync(
        process.execPath,
        [path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), `${iface}.json`, '-o', `${iface}.ts`],
        {
          cwd: dir,
          stdio: 'pipe',
        },
      );
      const generated = fs.readFileSync(path.join(dir, `${iface}.ts`), 'utf8');
      const committed = path.join(ROOT, 'clients', `${iface}.ts`);
      if (process.env.UPDATE_CLIENT_TYPES === '1') fs.writeFileSync(committed, generated);
      expect([iface, generated === fs.readFileSync(committed, 'utf8') ? 'up to date' : 'stale']).toEqual([iface, 'up to date']);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a developer signs up, then searches, orders and redeems through the generated clients only', async () => {
    // Sign-up needs no key; it answers one key per interface, with the address each one works at.
    const developer = createClient<DeveloperPaths>({ baseUrl: `${base}/developer/beta` });
    const signedUp = await developer.POST('/signups', { body: { signup: { email: `gen-${Date.now()}@example.com`, name: 'Gen' } } });
    expect(signedUp.error).toBeUndefined();
    const keys = signedUp.data!.signup.keys;
    const submission = createClient<SubmissionPaths>({
      baseUrl: keys.submission.base_url,
      headers: { 'X-SERVICE-API-KEY': keys.submission.key },
    });
    const distribution = createClient<DistributionPaths>({
      baseUrl: keys.distribution.base_url,
      headers: { 'X-SERVICE-API-KEY': keys.distribution.key },
    });

    // The advertiser submits; an operator approves (the review console's decision).
    const created = await submission.POST('/offers', {
      body: { offer: validOffer({ title: 'Generated-client dinner' }) as NewOffer },
    });
    expect(created.response.status).toBe(200);
    const offerId = created.data!.offer.id;
    await sendReviewDecision(h.services, offerId, 'approve', { reviewer: 'generated-client test' });
    expect(await waitForStatusChange(h.services, offerId, 'pending')).toBe('approved');

    // The publisher searches near a postal code and finds it.
    const found = await distribution.GET('/offers', { params: { query: { postal_code: '10001', radius: '5', per_page: 100 } } });
    expect(found.error).toBeUndefined();
    expect(found.data!.offers.map((o) => o.id)).toContain(offerId);

    // Orders two vouchers.
    const placed = await distribution.POST('/orders', {
      body: { order: { order_number: `gen-${offerId}`, customer_name: 'Ada Lovelace', items: [{ offer_id: offerId, quantity: 2 }] } },
    });
    expect(placed.error).toBeUndefined();
    const order = placed.data!.order;
    expect(order.vouchers).toHaveLength(2);
    const voucherId = order.vouchers[0].id;

    // The merchant redeems one at the till, once; a second redemption is refused with the error body.
    const redeemPath = { params: { path: { id: offerId, voucher_id: voucherId } }, body: { voucher: { status: 'redeemed' as const } } };
    const redeemed = await submission.PUT('/offers/{id}/vouchers/{voucher_id}', redeemPath);
    expect(redeemed.data!.voucher.status).toBe('redeemed');
    const again = await submission.PUT('/offers/{id}/vouchers/{voucher_id}', redeemPath);
    expect(again.response.status).toBe(409);
    expect(again.error!.status).toBe('ERROR');

    // The publisher sees the redemption on its order.
    const read = await distribution.GET('/orders/{id}', { params: { path: { id: order.id } } });
    expect(read.data!.order.vouchers.find((v) => v.id === voucherId)!.status).toBe('redeemed');
  });
});
