import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { checkCallbackSecretKey } from '../../services/callbacks';
import { setEndpoint } from '../../store/callbacks';
import { changeOfferStatus } from '../../store/offers';
import { admin } from '../setup/admin';
import { CallbackReceiver, eventually } from '../setup/callback-receiver';
import { seedOffer } from '../setup/fixtures';
import { createHarness, type Harness } from '../setup/harness';

function json(res: { code: number | null; stdout: string; stderr: string }) {
  if (res.code !== 0) throw new Error(`admin exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

describe('callback signing secrets encrypted at rest (CALLBACK_SECRET_KEY)', () => {
  const KEY = crypto.randomBytes(32).toString('base64');
  let h: Harness;
  const receivers: CallbackReceiver[] = [];
  const cli = (args: string[]) =>
    admin(args, { ...process.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE, CALLBACK_SECRET_KEY: KEY });
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
    h = await createHarness({ worker: true, env: { CALLBACK_SECRET_KEY: KEY, CALLBACK_RETRY_SCHEDULE: '1,1,1' } });
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
    const { secret } = json(await cli(['callbacks', 'set', '--key', key, '--url', r.url, '--json']));
    const stored = await storedSecret(clientId);
    expect(stored).toMatch(/^enc:v1:/);
    expect(stored).not.toContain(secret.slice('whsec_'.length));
    const got = await changeAndReceive(r, offerId);
    expect(() => new Webhook(secret).verify(got.body, got.headers)).not.toThrow();
  });

  it('a secret stored in clear before the key was set still signs, and `callbacks encrypt-secrets` encrypts it', async () => {
    const { clientId } = await h.client('submission');
    const r = await receiver();
    // As written by a deployment without CALLBACK_SECRET_KEY.
    const { secret } = await setEndpoint(h.services.db, { clientId, url: r.url, format: 'json', secretKey: undefined });
    expect(await storedSecret(clientId)).toBe(secret);
    const first = await changeAndReceive(r, await seedOffer(h, clientId, {}, 'pending'));
    expect(() => new Webhook(secret!).verify(first.body, first.headers)).not.toThrow();

    const { encrypted } = json(await cli(['callbacks', 'encrypt-secrets']));
    expect(encrypted).toBeGreaterThanOrEqual(1);
    expect(await storedSecret(clientId)).toMatch(/^enc:v1:/);
    expect(json(await cli(['callbacks', 'encrypt-secrets'])).encrypted).toBe(0); // nothing left in clear
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:withdraw`, offerId, to: 'withdrawn', actor: 'advertiser' });
    const [, second] = await r.waitFor(2);
    expect(() => new Webhook(secret!).verify(second.body, second.headers)).not.toThrow();
  });

  it('a secret encrypted with another key is never sent unsigned: nothing goes out, and a start-up check refuses', async () => {
    const { clientId } = await h.client('submission');
    const r = await receiver();
    const otherKey = crypto.randomBytes(32).toString('base64');
    await setEndpoint(h.services.db, { clientId, url: r.url, format: 'json', secretKey: otherKey });
    const offerId = await seedOffer(h, clientId, {}, 'pending');
    await changeOfferStatus(h.services.db, { key: `test:${offerId}:withdraw`, offerId, to: 'withdrawn', actor: 'advertiser' });
    // The delivery row exists (dispatched), yet after a few seconds of the worker trying, nothing was received.
    await eventually(
      async () =>
        (await h.services.db
          .selectFrom('callback_deliveries as d')
          .innerJoin('callback_endpoints as e', 'e.id', 'd.endpoint_id')
          .select('d.id')
          .where('e.client_id', '=', clientId)
          .executeTakeFirst()) ?? null,
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(r.received).toHaveLength(0);
    await expect(checkCallbackSecretKey({ db: h.services.db, config: { ...h.config, CALLBACK_SECRET_KEY: undefined } })).rejects.toThrow(
      /CALLBACK_SECRET_KEY is not set/,
    );
    await expect(checkCallbackSecretKey({ db: h.services.db, config: h.config })).rejects.toThrow(/encrypted with another key/);
    await h.services.db
      .updateTable('callback_endpoints')
      .set({ status: 'disabled', disabled_reason: 'test over' })
      .where('client_id', '=', clientId)
      .execute();
  });
});
