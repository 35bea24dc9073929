import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createDeliveryAttempt } from '../../../activities/callbacks/delivery';
import { checkCallbackSecretKey } from '../../../services/callbacks';
import { setEndpoint } from '../../../store/callback-endpoints';
import { expectedKeyId, sealV1 } from '../../setup/secret-v1';
import { changeOfferStatus } from '../../../store/offers';
import { admin, adminJson } from '../../setup/admin';
import { CallbackReceiver } from '../../setup/callback-receiver';
import { eventually } from '../../setup/eventually';
import { seedOffer } from '../../setup/fixtures';
import { createHarness, type Harness } from '../../setup/harness';

describe('callback signing secrets encrypted at rest (CALLBACK_SECRET_KEY)', () => {
  const KEY = crypto.randomBytes(32).toString('base64');
  let h: Harness;
  const receivers: CallbackReceiver[] = [];
  const cli = (args: string[]) =>
    admin(args, { ...process.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE, CALLBACK_SECRET_KEY: KEY });
  const underKey = new RegExp(`^enc:v2:${expectedKeyId(KEY)}:`);
  const storedSecret = async (clientId: string) =>
    (await h.services.db.selectFrom('callback_endpoints').select('secret').where('client_id', '=', clientId).executeTakeFirstOrThrow())
      .secret;
  const receiver = async () => {
    const r = await new CallbackReceiver().start();
    receivers.push(r);
    return r;
  };
  /** Withdraws the client's offer and returns the callback it caused. */
  const changeAndReceive = async (r: CallbackReceiver, offerId: string) => {
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:withdraw`, offerId, to: 'withdrawn', actor: 'advertiser' });
    const [got] = await r.waitFor(1);
    return got;
  };

  beforeAll(async () => {
    h = await createHarness({ worker: true, env: { CALLBACK_SECRET_KEY: KEY }, fixed: { CALLBACK_RETRY_SCHEDULE: [1, 1, 1] } });
  });
  afterAll(async () => {
    // Leave no endpoint behind for later test files to dispatch to.
    await h.services.db.updateTable('callback_endpoints').set({ status: 'disabled', disabled_reason: 'test over' }).execute();
    // The suite's stack is shared: processes started later without CALLBACK_SECRET_KEY would (rightly)
    // refuse to start beside encrypted secrets, so this file's encrypted secrets go with it.
    await h.services.db
      .updateTable('callback_endpoints')
      .set({ secret: 'whsec_dGVzdCBvdmVy', previous_secret: null, previous_secret_expires_at: null })
      .where((eb) => eb.or([eb('secret', 'like', 'enc:%'), eb('previous_secret', 'like', 'enc:%')]))
      .execute();
    await Promise.all(receivers.map((r) => r.stop()));
    await h.close();
  });

  it('stores a new secret encrypted, and deliveries verify with the secret the client was given', async () => {
    const { key, clientId } = await h.client('submission');
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    const r = await receiver();
    const { secret } = adminJson(await cli(['callbacks', 'set', '--key', key, '--url', r.url, '--json']));
    const stored = await storedSecret(clientId);
    expect(stored).toMatch(underKey);
    expect(stored).not.toContain(secret.slice('whsec_'.length));
    const got = await changeAndReceive(r, offerId);
    expect(() => new Webhook(secret).verify(got.body, got.headers)).not.toThrow();
  });

  it('a secret stored in clear before the key was set still signs, and `callbacks encrypt-secrets` encrypts it', async () => {
    const { clientId } = await h.client('submission');
    const r = await receiver();
    // As written by a deployment without CALLBACK_SECRET_KEY.
    const { secret } = await setEndpoint(h.services.db, { clientId, url: r.url, format: 'json', secretKeys: undefined });
    expect(await storedSecret(clientId)).toBe(secret);
    const first = await changeAndReceive(r, await seedOffer(h, clientId, {}, 'pending'));
    expect(() => new Webhook(secret!).verify(first.body, first.headers)).not.toThrow();

    const { encrypted } = adminJson(await cli(['callbacks', 'encrypt-secrets']));
    expect(encrypted).toBeGreaterThanOrEqual(1);
    expect(await storedSecret(clientId)).toMatch(underKey);
    expect(adminJson(await cli(['callbacks', 'encrypt-secrets'])).encrypted).toBe(0); // nothing left in clear
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:withdraw`, offerId, to: 'withdrawn', actor: 'advertiser' });
    const [, second] = await r.waitFor(2);
    expect(() => new Webhook(secret!).verify(second.body, second.headers)).not.toThrow();
  });

  it('a secret encrypted with another key is never sent unsigned: nothing goes out, and a start-up check refuses', async () => {
    const { clientId } = await h.client('submission');
    const r = await receiver();
    const otherKey = crypto.randomBytes(32).toString('base64');
    await setEndpoint(h.services.db, { clientId, url: r.url, format: 'json', secretKeys: [otherKey] });
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:withdraw`, offerId, to: 'withdrawn', actor: 'advertiser' });
    // The delivery row exists (dispatched); an attempt of it (the one the worker's dispatcher and
    // the delivery's lane make) fails before sending anything, and nothing was received.
    const delivery = await eventually('the delivery dispatched', () =>
      h.services.db
        .selectFrom('callback_deliveries as d')
        .innerJoin('callback_endpoints as e', 'e.id', 'd.endpoint_id')
        .select('d.id')
        .where('e.client_id', '=', clientId)
        .executeTakeFirst(),
    );
    await expect(createDeliveryAttempt(h.services)({ deliveryId: delivery.id })).rejects.toThrow(/encrypted with another key/);
    expect(r.received).toHaveLength(0);
    await expect(checkCallbackSecretKey({ db: h.services.db, config: { ...h.config, CALLBACK_SECRET_KEY: undefined } })).rejects.toThrow(
      /CALLBACK_SECRET_KEY is not set/,
    );
    await expect(checkCallbackSecretKey({ db: h.services.db, config: h.config })).rejects.toThrow(
      `encrypted with key id ${expectedKeyId(otherKey)} (1). CALLBACK_SECRET_KEY holds key ids ${expectedKeyId(KEY)} (current)`,
    );
    await h.services.db
      .updateTable('callback_endpoints')
      .set({ status: 'disabled', disabled_reason: 'test over' })
      .where('client_id', '=', clientId)
      .execute();
  });
});

/*
 * Rotating CALLBACK_SECRET_KEY as docs/security.md tells an operator to: [OLD] → [NEW, OLD] →
 * `callbacks reencrypt` → [NEW]. Each step restarts the worker with the new setting (a harness of
 * its own, after the start-up check `npm start` makes), and every endpoint keeps receiving
 * callbacks that verify with the secret its client holds.
 */
describe('rotating CALLBACK_SECRET_KEY: [old] → [new, old] → callbacks reencrypt → [new]', () => {
  const OLD = crypto.randomBytes(32).toString('base64');
  const NEW = crypto.randomBytes(32).toString('base64');
  const [OLD_ID, NEW_ID] = [expectedKeyId(OLD), expectedKeyId(NEW)];
  let h: Harness | undefined;
  let keys = '';

  interface Endpoint {
    name: string;
    clientId: string;
    receiver: CallbackReceiver;
    /** Every secret the client was given that still signs: each callback must verify with each. */
    secrets: string[];
  }
  const endpoints: Endpoint[] = [];

  const cli = (args: string[], withKeys = keys) =>
    admin(args, { ...process.env, TEMPORAL_TASK_QUEUE: h!.config.TEMPORAL_TASK_QUEUE, CALLBACK_SECRET_KEY: withKeys });
  const db = () => h!.services.db;
  const stored = (clientId: string) =>
    db().selectFrom('callback_endpoints').select(['secret', 'previous_secret']).where('client_id', '=', clientId).executeTakeFirstOrThrow();

  /** Restarts the worker with CALLBACK_SECRET_KEY=`list`, after the start-up check `npm start` makes. */
  async function restartWith(list: string) {
    await h?.close();
    keys = list;
    h = await createHarness({ worker: false, env: { CALLBACK_SECRET_KEY: list }, fixed: { CALLBACK_RETRY_SCHEDULE: [1, 1, 1] } });
    await checkCallbackSecretKey(h.services);
    await h.startWorker();
  }

  async function addEndpoint(name: string, write: (clientId: string, url: string) => Promise<string[]>): Promise<Endpoint> {
    const { clientId } = await h!.client('submission');
    const receiver = await new CallbackReceiver().start();
    const e = { name, clientId, receiver, secrets: await write(clientId, receiver.url) };
    endpoints.push(e);
    return e;
  }

  /** One offer change per endpoint, at once; resolves with how many callbacks each receiver must then have. */
  async function changeEach(): Promise<number[]> {
    return Promise.all(
      endpoints.map(async (e) => {
        const offerId = await seedOffer(h!, e.clientId, {}, 'pending');
        await changeOfferStatus(db(), { key: `test:${offerId}:withdraw`, offerId, to: 'withdrawn', actor: 'advertiser' });
        return e.receiver.received.length + 1;
      }),
    );
  }

  /** Waits for every callback caused so far and checks that each verifies with each of its endpoint's secrets. */
  async function expectAllDeliveredAndSigned(expected: number[]) {
    await Promise.all(endpoints.map((e, i) => e.receiver.waitFor(expected[i] ?? 0)));
    for (const e of endpoints) {
      expect(e.receiver.received.length).toBeGreaterThan(0);
      for (const got of e.receiver.received)
        for (const secret of e.secrets) {
          expect(() => new Webhook(secret).verify(got.body, got.headers)).not.toThrow();
        }
    }
  }
  const deliverToEach = async () => expectAllDeliveredAndSigned(await changeEach());
  /** How many callbacks each endpoint must have received after `n` more changes each. */
  const most = (a: number[], b: number[]) => endpoints.map((_, i) => Math.max(a[i] ?? 0, b[i] ?? 0));

  afterAll(async () => {
    if (h) {
      await db().updateTable('callback_endpoints').set({ status: 'disabled', disabled_reason: 'test over' }).execute();
      // As above: the stack is shared, and later test files run without these keys.
      await db()
        .updateTable('callback_endpoints')
        .set({ secret: 'whsec_dGVzdCBvdmVy', previous_secret: null, previous_secret_expires_at: null })
        .where((eb) => eb.or([eb('secret', 'like', 'enc:%'), eb('previous_secret', 'like', 'enc:%')]))
        .execute();
      await h.close();
    }
    await Promise.all(endpoints.map((e) => e.receiver.stop()));
  });

  it('[old]: secrets under the old key (v2, and a rotated one), in enc:v1 and in clear all sign', async () => {
    await restartWith(OLD);
    await addEndpoint('v2, secret rotated', async (clientId, url) => {
      const { secret: first } = adminJson(await cli(['callbacks', 'set', '--key', clientId, '--url', url, '--json']));
      const { secret: second } = adminJson(await cli(['callbacks', 'rotate-secret', '--key', clientId, '--json']));
      return [first, second]; // both sign during the secret's overlap
    });
    await addEndpoint('enc:v1', async (clientId, url) => {
      const { secret } = await setEndpoint(db(), { clientId, url, format: 'json', secretKeys: undefined });
      await db()
        .updateTable('callback_endpoints')
        .set({ secret: sealV1(secret!, OLD) })
        .where('client_id', '=', clientId)
        .execute();
      return [secret!];
    });
    await addEndpoint('clear', async (clientId, url) => {
      const { secret } = await setEndpoint(db(), { clientId, url, format: 'json', secretKeys: undefined });
      return [secret!];
    });
    const [rotated, v1, clear] = await Promise.all(endpoints.map((e) => stored(e.clientId)));
    expect(rotated.secret).toMatch(new RegExp(`^enc:v2:${OLD_ID}:`));
    expect(rotated.previous_secret).toMatch(new RegExp(`^enc:v2:${OLD_ID}:`));
    expect(v1.secret).toMatch(/^enc:v1:/);
    expect(clear.secret).toBe(endpoints[2].secrets[0]);
    await deliverToEach();
  });

  it('[new, old]: everything still signs, and new secrets are stored under the new key', async () => {
    await restartWith(`${NEW},${OLD}`);
    await deliverToEach();
    const fresh = await addEndpoint('set during the rotation', async (clientId, url) => [
      adminJson(await cli(['callbacks', 'set', '--key', clientId, '--url', url, '--json'])).secret,
    ]);
    expect((await stored(fresh.clientId)).secret).toMatch(new RegExp(`^enc:v2:${NEW_ID}:`));
    await deliverToEach();
  });

  it('dropping the old key before callbacks reencrypt is refused, naming its key id; nothing is rewritten', async () => {
    const before = await Promise.all(endpoints.map((e) => stored(e.clientId)));
    const onlyNew = { db: db(), config: { ...h!.config, CALLBACK_SECRET_KEY: [NEW] } };
    const refusal = await checkCallbackSecretKey(onlyNew).then(
      () => '',
      (err: Error) => err.message,
    );
    expect(refusal).toMatch(/^3 stored callback signing secret\(s\) cannot be opened: encrypted with /);
    expect(refusal).toContain(`key id ${OLD_ID} (2)`);
    expect(refusal).toContain('an unknown key (enc:v1 values have no key id) (1)');
    expect(refusal).toContain(`CALLBACK_SECRET_KEY holds key ids ${NEW_ID} (current).`);
    expect(refusal).toContain('Put the missing key back in the list, after the current one');
    const refused = await cli(['callbacks', 'reencrypt'], NEW);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`key id ${OLD_ID} (2)`);
    expect(await Promise.all(endpoints.map((e) => stored(e.clientId)))).toEqual(before);
    // With the old key back in the list, it starts again.
    await expect(checkCallbackSecretKey({ db: db(), config: h!.config })).resolves.toBeUndefined();
  });

  it('callbacks reencrypt rewrites every secret under the new key, in batches, while callbacks go on; again it does nothing', async () => {
    // Offer changes keep coming while the command runs, so deliveries read rows as they are rewritten.
    let expected = await changeEach();
    let running = true;
    const reencrypt = cli(['callbacks', 'reencrypt', '--batch-size', '1']).finally(() => (running = false));
    while (running) {
      expected = most(expected, await changeEach());
      await new Promise((r) => setTimeout(r, 300));
    }
    const out = adminJson(await reencrypt);
    expect(out.key_id).toBe(NEW_ID);
    // Ours (other test files may have left clear secrets too, rewritten as well): a rotated pair
    // under the old key, one v1, one clear; the one set during the rotation was already current.
    expect(out.from[`v2:${OLD_ID}`]).toBe(2);
    expect(out.from.v1).toBe(1);
    expect(out.from.clear).toBeGreaterThanOrEqual(1);
    expect(out.from[`v2:${NEW_ID}`]).toBeUndefined();
    expect(out.endpoints).toBeGreaterThanOrEqual(3);
    expect(out.secrets).toBe(Object.values(out.from as Record<string, number>).reduce((a, b) => a + b, 0));
    await expectAllDeliveredAndSigned(expected);

    const rows = await db().selectFrom('callback_endpoints').select(['secret', 'previous_secret']).execute();
    for (const r of rows) {
      expect(r.secret).toMatch(new RegExp(`^enc:v2:${NEW_ID}:`));
      if (r.previous_secret !== null) expect(r.previous_secret).toMatch(new RegExp(`^enc:v2:${NEW_ID}:`));
    }
    expect(adminJson(await cli(['callbacks', 'reencrypt']))).toEqual({ key_id: NEW_ID, endpoints: 0, secrets: 0, from: {} });
  });

  it('[new]: the start-up check passes without the old key, and every endpoint still receives callbacks it can verify', async () => {
    await restartWith(NEW);
    await deliverToEach();
    // And a secret rotation after the key rotation: both secrets sign, under the new key.
    const e = endpoints[2];
    const { secret } = adminJson(await cli(['callbacks', 'rotate-secret', '--key', e.clientId, '--json']));
    e.secrets.push(secret);
    e.receiver.received.length = 0; // earlier callbacks were signed without the new secret
    const now = await stored(e.clientId);
    expect(now.secret).toMatch(new RegExp(`^enc:v2:${NEW_ID}:`));
    expect(now.previous_secret).toMatch(new RegExp(`^enc:v2:${NEW_ID}:`));
    await deliverToEach();
  });
});
