import crypto from 'node:crypto';
import Fastify from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { idempotencyPlugin } from '../../../api/plugins/idempotency';
import { claimKey, endClaim, idempotencyRequestHash } from '../../../services/idempotency';
import { claimIdempotencyKey } from '../../../store/idempotency-keys';
import { IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE } from '../../../workflows/idempotency-key-pruning-messages';
import { idempotencyKeyPruningScheduleId } from '../../../workflows/shared/ids';
import { advertiserId } from '../../setup/counter';
import { eventually } from '../../setup/eventually';
import { seedOffer, validOffer } from '../../setup/fixtures';
import { type Harness, harnessWithKeys } from '../../setup/harness';

type Method = 'POST' | 'PUT' | 'DELETE' | 'PATCH';
type Schema = { $ref?: string; required?: string[]; properties?: Record<string, unknown>; anyOf?: Schema[] };
type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
};

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** An id every IdParam accepts and no row has. */
const MISSING = 'idem_missing_0';

describe('Idempotency-Key on every request that changes something', () => {
  let h: Harness;
  let sub: { key: string; clientId: string };
  const docs: Record<string, Doc> = {};
  beforeAll(async () => {
    ({ h, sub } = await harnessWithKeys());
    for (const iface of ['submission', 'distribution'])
      docs[iface] = (await h.app.inject({ method: 'GET', url: `/${iface}/beta/openapi.json` })).json();
  });
  afterAll(() => h.close());

  const newKey = () => `k-${crypto.randomUUID()}`;
  const send = (method: string, url: string, apiKey: string, idem: string | undefined, payload?: unknown) =>
    h.app.inject({
      method: method as Method,
      url,
      headers: { 'x-service-api-key': apiKey, ...(idem !== undefined && { 'idempotency-key': idem }) },
      ...(payload !== undefined && { payload: payload as object }),
    });

  /** Two different bodies a route reads (each refused by its schema: any answer is kept), or none for a route without one. */
  function bodiesOf(iface: string, method: string, url: string): [unknown, unknown] {
    const op = docs[iface].paths[url.replace(/^\/\w+\/beta/, '').replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
    const inline = op?.requestBody?.content['application/json']?.schema;
    if (!inline) return [{ probe: 'first' }, { probe: 'second' }];
    const named = inline.$ref ? docs[iface].components.schemas[inline.$ref.split('/').pop()!] : (inline as Schema);
    // An optional body (zod's nullish) is documented as anyOf [the object, null]: its fields are the object's.
    const schema = named.anyOf?.find((s) => s.properties) ?? named;
    const field = schema.required?.[0] ?? Object.keys(schema.properties ?? {})[0];
    return [{ [field]: 'first' }, { [field]: 'second' }];
  }

  /** A multipart upload of one small file. */
  const upload = (text: string) => {
    const boundary = `b${crypto.randomUUID()}`;
    return {
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="attachment[media]"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${text}\r\n--${boundary}--\r\n`,
    };
  };

  it('every mutating route of the registry replays its first answer byte for byte, and refuses the key for another body (422)', async () => {
    // Reservations are refused before any route runs unless enabled: a client with them sees every route run.
    const distKey = await h.key('distribution', { reservations: true });
    const routes = h.app.registeredRoutes.filter((r) => /^\/(submission|distribution)\/beta\//.test(r.url) && CHANGES.has(r.method));
    expect(routes.length).toBeGreaterThan(20);
    for (const { method, url: pattern } of routes) {
      const url = pattern.replace(/:(\w+)/g, MISSING);
      const iface = pattern.split('/')[1];
      const apiKey = iface === 'submission' ? sub.key : distKey;
      const key = newKey();
      const isUpload = pattern.endsWith('/attachments') && method === 'POST';
      // An upload's retry has its own multipart boundary: it is known by its file, not its framing.
      const uploadOf = (file: string, u = upload(file)) =>
        h.app.inject({ method, url, payload: u.payload, headers: { 'x-service-api-key': apiKey, 'idempotency-key': key, ...u.headers } });
      const call = (body: unknown) => (isUpload ? uploadOf(body as string) : send(method, url, apiKey, key, body));
      const [first, second] = isUpload ? ['not an image', 'another text'] : bodiesOf(iface, method, pattern);
      const a = await call(first);
      const route = `${method} ${pattern}`;
      expect([route, a.statusCode < 500, a.headers['idempotent-replayed']]).toEqual([route, true, undefined]);
      const replay = await call(first);
      expect([route, replay.statusCode, replay.body, replay.headers['idempotent-replayed']]).toEqual([route, a.statusCode, a.body, 'true']);
      expect(replay.headers['content-type']).toBe(a.headers['content-type']);
      const other = await call(second);
      expect([route, other.statusCode, other.json().errors?.[0]?.code]).toEqual([route, 422, 'idempotency_key_reused']);
    }
  });

  it('20 parallel POST /offers with one key create one offer; the others replay its answer (or are told 409 while it runs)', async () => {
    const client = await h.client('submission');
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => send('POST', '/submission/beta/offers', client.key, key, { offer: validOffer() })),
    );
    const offers = await h.services.db.selectFrom('offers').select('id').where('client_id', '=', client.clientId).execute();
    expect(offers).toHaveLength(1);
    const done = answers.filter((a) => a.statusCode !== 409);
    for (const a of answers.filter((x) => x.statusCode === 409)) {
      expect(a.json().errors[0].code).toBe('idempotency_key_in_progress');
      expect(a.headers['retry-after']).toBe('1');
    }
    expect(done[0].statusCode).toBe(200);
    expect(done[0].json().offer.id).toBe(offers[0].id);
    expect(new Set(done.map((a) => a.body)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
  });

  it('keys are per client; a request still running is 409 with Retry-After; bad keys are 422', async () => {
    const other = await h.client('submission');
    const key = newKey();
    const body = { offer: 'first' };
    const mine = await send('POST', '/submission/beta/offers', sub.key, key, body);
    expect(mine.statusCode).toBe(422);
    // Another client's key of the same name is its own: its other body runs.
    const theirs = await send('POST', '/submission/beta/offers', other.key, key, { offer: 'second' });
    expect(theirs.json().errors[0].code).toBe('invalid_field');
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();

    // A claim of this very request that has not answered yet: the retry waits a little, then is told to come back.
    const running = newKey();
    const hash = idempotencyRequestHash('POST', '/submission/beta/offers', body);
    expect((await claimKey(h.services, { clientId: sub.clientId, key: running, requestHash: hash })).kind).toBe('claimed');
    const busy = await send('POST', '/submission/beta/offers', sub.key, running, body);
    // The same request takes a claim over once it is older than a process may take (its process died).
    const stale = { clientId: sub.clientId, key: running, requestHash: hash, ttlSeconds: 3600, staleSeconds: 0 };
    expect((await claimIdempotencyKey(h.services.db, { ...stale, requestHash: 'another request' })).kind).toBe('reused');
    expect(busy.statusCode).toBe(409);
    expect(busy.json().errors[0]).toMatchObject({ code: 'idempotency_key_in_progress', field: 'idempotency-key' });
    expect(busy.headers['retry-after']).toBe('1');

    expect((await claimIdempotencyKey(h.services.db, stale)).kind).toBe('claimed');

    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'two words']) {
      const res = await send('POST', '/submission/beta/offers', sub.key, bad, body);
      expect([bad, res.statusCode, res.json().errors[0].field]).toEqual([bad, 422, 'idempotency-key']);
    }
    // A read ignores the header.
    expect((await send('GET' as Method, '/submission/beta/offers', sub.key, 'two words')).statusCode).toBe(200);
  });

  it('developer sign-up refuses the header, saying why', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/developer/beta/signups',
      headers: { 'idempotency-key': newKey() },
      payload: { signup: { email: `idem-${Date.now()}@example.com`, name: 'Idem' } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ code: 'invalid_field', field: 'idempotency-key' });
    expect(res.json().errors[0].message).toMatch(/never stored/);
  });

  it('a 5xx answer is not kept: the retry runs again and its answer is the one replayed', async () => {
    const pinned = Fastify();
    const clientId = `test-${crypto.randomUUID()}`;
    let count = 0;
    await idempotencyPlugin(pinned, { deps: h.services, clientOf: () => clientId });
    pinned.post('/flaky', async (_request, reply) => (++count === 1 ? reply.code(503).send({ run: count }) : { run: count }));
    await pinned.ready();
    const again = () => pinned.inject({ method: 'POST', url: '/flaky', headers: { 'idempotency-key': 'same' }, payload: {} });
    expect((await again()).statusCode).toBe(503);
    const second = await again();
    expect([second.statusCode, second.json(), second.headers['idempotent-replayed']]).toEqual([200, { run: 2 }, undefined]);
    const third = await again();
    expect([third.statusCode, third.json(), third.headers['idempotent-replayed']]).toEqual([200, { run: 2 }, 'true']);
    expect(count).toBe(2);
    await pinned.close();
  });

  it('expired keys are pruned by a scheduled workflow', async () => {
    const clientId = `test-${crypto.randomUUID()}`;
    const expired = { clientId, key: 'old', requestHash: 'h', ttlSeconds: -1, staleSeconds: 300 };
    expect((await claimIdempotencyKey(h.services.db, expired)).kind).toBe('claimed');
    // An expired key is free again for any request.
    expect((await claimIdempotencyKey(h.services.db, { ...expired, requestHash: 'other' })).kind).toBe('claimed');
    const live = { ...expired, key: 'live', ttlSeconds: 3600 };
    expect((await claimIdempotencyKey(h.services.db, live)).kind).toBe('claimed');

    const schedule = await h.services.temporal.schedule.getHandle(idempotencyKeyPruningScheduleId(h.config.TEMPORAL_TASK_QUEUE)).describe();
    expect(schedule.action).toMatchObject({ workflowType: IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE });
    const result = await h.services.temporal.workflow.execute(IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE, {
      taskQueue: h.config.TEMPORAL_TASK_QUEUE,
      workflowId: `prune-test-${crypto.randomUUID()}`,
      args: [{}],
    });
    expect((result as { deleted: number }).deleted).toBeGreaterThanOrEqual(1);
    const left = await h.services.db.selectFrom('idempotency_keys').select('key').where('client_id', '=', clientId).execute();
    expect(left.map((r) => r.key)).toEqual(['live']);
  });

  it('an answer carrying a secret is never stored: its replay is 409 secret_shown, the row holds no code, one staff member was made', async () => {
    const client = await h.client('submission');
    await seedOffer(h, client.clientId, { advertiser: { ...(validOffer().advertiser as object), name: 'Idem Cafe' } });
    const body = { redemption_staff: { name: 'Ida', advertiser_id: await advertiserId(h, client.key, 'Idem Cafe') } };
    const key = newKey();
    const first = await send('POST', '/submission/beta/redemption_staff', client.key, key, body);
    expect(first.statusCode).toBe(200);
    const { id, sign_in } = first.json().redemption_staff as { id: string; sign_in: { code: string; url: string } };
    const again = await send('POST', '/submission/beta/redemption_staff', client.key, key, body);
    expect([again.statusCode, again.json().errors[0].code, again.headers['idempotent-replayed']]).toEqual([
      409,
      'idempotency_key_secret_shown',
      undefined,
    ]);
    expect(again.body).not.toContain(sign_in.code);
    const staff = await h.services.db.selectFrom('redemption_staff').select('id').where('client_id', '=', client.clientId).execute();
    expect(staff.map((r) => r.id)).toEqual([id]);

    const signInKey = newKey();
    const renewed = await send('POST', `/submission/beta/redemption_staff/${id}/sign_in`, client.key, signInKey);
    expect(renewed.statusCode).toBe(200);
    const code = renewed.json().redemption_staff.sign_in.code as string;
    const renewedAgain = await send('POST', `/submission/beta/redemption_staff/${id}/sign_in`, client.key, signInKey);
    expect([renewedAgain.statusCode, renewedAgain.json().errors[0].code]).toEqual([409, 'idempotency_key_secret_shown']);

    // What the database keeps for a replay holds neither code, nor the sign-in link.
    const rows = await h.services.db.selectFrom('idempotency_keys').selectAll().where('client_id', '=', client.clientId).execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const kept = `${JSON.stringify(row.headers)} ${row.body?.toString('latin1')}`;
      for (const secret of [sign_in.code, sign_in.url, code]) expect(kept).not.toContain(secret);
    }
  });

  it("a replay answers in the retry's format: XML to a retry that asks for XML, JSON to one that asks for JSON", async () => {
    const client = await h.client('submission');
    const key = newKey();
    const body = { offer: validOffer() };
    const asked = (accept: string) =>
      h.app.inject({
        method: 'POST',
        url: '/submission/beta/offers',
        headers: { 'x-service-api-key': client.key, 'idempotency-key': key, accept },
        payload: body,
      });
    const first = await asked('application/json');
    expect(first.statusCode).toBe(200);
    const id = first.json().offer.id as string;
    const xml = await asked('application/xml');
    expect([xml.statusCode, xml.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    expect(xml.body).toContain(`<id>${id}</id>`);
    const json = await asked('application/json');
    expect([json.headers['content-type'], json.body]).toEqual([first.headers['content-type'], first.body]);
    // A refusal too.
    const refusedKey = newKey();
    const refused = (accept: string) =>
      h.app.inject({
        method: 'POST',
        url: '/submission/beta/offers',
        headers: { 'x-service-api-key': client.key, 'idempotency-key': refusedKey, accept },
        payload: { offer: 'first' },
      });
    expect((await refused('application/json')).statusCode).toBe(422);
    const refusedXml = await refused('application/xml');
    expect([refusedXml.statusCode, refusedXml.headers['idempotent-replayed']]).toEqual([422, 'true']);
    expect(refusedXml.body).toMatch(/^<\?xml[\s\S]*<code>invalid_field<\/code>/);
  });

  it('a retry waits on the running claim itself: woken when it ends, not by reading the key again and again; one LISTEN connection for all waits', async () => {
    const client = await h.client('submission');
    const body = { offer: 'first' };
    const hash = idempotencyRequestHash('POST', '/submission/beta/offers', body);
    const keys = Array.from({ length: 5 }, () => newKey());
    for (const key of keys)
      expect((await claimKey(h.services, { clientId: client.clientId, key, requestHash: hash })).kind).toBe('claimed');
    // Every statement the process sends to Postgres (a module's exports cannot be spied on in place).
    const statements = jest.spyOn(pg.Client.prototype, 'query');
    try {
      const waiting = keys.map((key) => send('POST', '/submission/beta/offers', client.key, key, body));
      // Every wait listens on the process's one listening connection.
      const listeners = await eventually('the waits listening', async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity where query = 'LISTEN "idempotency_keys"'`.execute(h.services.db);
        return rows[0].n > 0 && rows[0].n;
      });
      expect(listeners).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the twins' requests keep running for a second
      for (const key of keys)
        await endClaim(
          h.services,
          { clientId: client.clientId, key, requestHash: hash },
          { status: 201, headers: {}, body: Buffer.from('{"done":true}'), kind: 'bytes' },
        );
      const answers = await Promise.all(waiting);
      for (const a of answers) expect([a.statusCode, a.body, a.headers['idempotent-replayed']]).toEqual([201, '{"done":true}', 'true']);
      // Each wait read its key when it came, once listening, and once woken: polling every 50 ms would have read it 20 times.
      const reads = statements.mock.calls.filter(([q]) => /^select\b[\s\S]*\bfrom "idempotency_keys"/.test(String(q)));
      expect(reads.length).toBeGreaterThanOrEqual(keys.length);
      expect(reads.length).toBeLessThanOrEqual(keys.length * 4);
    } finally {
      statements.mockRestore();
    }
  });

  it('a reservation retried after a 5xx with the same key finds the first hold: its id comes from the key, the units are held once', async () => {
    const dist = await h.client('distribution', { reservations: true });
    const offerId = await seedOffer(h, sub.clientId, { initial_quantity: 10 });
    const created = await send('POST', '/distribution/beta/accounts', dist.key, undefined, { account: { name: 'Blog' } });
    const accountId = created.json().account.id as string;
    expect(
      (await send('PUT', `/distribution/beta/accounts/${accountId}`, dist.key, undefined, { account: { status: 'active' } })).statusCode,
    ).toBe(200);
    const key = newKey();
    const url = `/distribution/beta/offers/${offerId}/reservations`;
    const body = {
      reservation: {
        account_id: accountId,
        quantity_reserved: 3,
        start_date: new Date().toISOString().slice(0, 10),
        end_date: '2099-01-01',
      },
    };
    const first = await send('POST', url, dist.key, key, body);
    expect(first.statusCode).toBe(200);
    // The first answer was a 503 the client never saw kept: its claim released, the retry runs again.
    await endClaim(h.services, { clientId: dist.clientId, key, requestHash: idempotencyRequestHash('POST', url, body) });
    await h.services.db.deleteFrom('idempotency_keys').where('client_id', '=', dist.clientId).execute();
    const retry = await send('POST', url, dist.key, key, body);
    expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(retry.json().reservation.id).toBe(first.json().reservation.id);
    const rows = await h.services.db.selectFrom('reservations').select('id').where('client_id', '=', dist.clientId).execute();
    expect(rows).toHaveLength(1);
    const offer = await h.services.db
      .selectFrom('offers')
      .select(['quantity_in_stock', 'reserved_quantity'])
      .where('id', '=', offerId)
      .executeTakeFirstOrThrow();
    expect(offer).toEqual({ quantity_in_stock: 7, reserved_quantity: 3 });
  });

  it("an offer retried after a 5xx with the same key is the first try's offer; the key reused after it expired makes a new one", async () => {
    const client = await h.client('submission');
    const key = newKey();
    const url = '/submission/beta/offers';
    const body = { offer: validOffer() };
    const first = await send('POST', url, client.key, key, body);
    expect(first.statusCode).toBe(200);
    // The first answer was a 5xx (say, the read after the insert failed): not kept, the claim released.
    await h.services.db.deleteFrom('idempotency_keys').where('client_id', '=', client.clientId).execute();
    const retry = await send('POST', url, client.key, key, body);
    expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(retry.json().offer.id).toBe(first.json().offer.id);
    // A day later the key, expired, names another request: that one is a new offer, not the old one again.
    await h.services.db.deleteFrom('idempotency_keys').where('client_id', '=', client.clientId).execute();
    const other = await send('POST', url, client.key, key, { offer: { ...validOffer(), title: 'Another offer' } });
    expect(other.statusCode).toBe(200);
    expect(other.json().offer).toMatchObject({ title: 'Another offer' });
    const offers = await h.services.db.selectFrom('offers').select('id').where('client_id', '=', client.clientId).execute();
    expect(offers.map((o) => o.id).sort()).toEqual([first.json().offer.id, other.json().offer.id].sort());
  });

  it('an offer retried after its review started but the offer was undone takes that review, not a 503 for ever', async () => {
    const client = await h.client('submission');
    const key = newKey();
    const body = { offer: validOffer() };
    const first = await send('POST', '/submission/beta/offers', client.key, key, body);
    expect(first.statusCode).toBe(200);
    const offerId = first.json().offer.id as string;
    // As when the workflow's start reached Temporal but its answer did not: the offer undone, the claim released.
    await h.services.db.deleteFrom('idempotency_keys').where('client_id', '=', client.clientId).execute();
    await h.services.db.deleteFrom('offers').where('id', '=', offerId).execute();
    const retry = await send('POST', '/submission/beta/offers', client.key, key, body);
    expect([retry.statusCode, retry.json().offer?.id]).toEqual([200, offerId]);
  });

  it.each([
    ['an account', 'distribution', () => '/distribution/beta/accounts', { account: { name: 'Retried blog' } }, 'account', 'accounts'],
    [
      'a comment',
      'submission',
      (offerId: string) => `/submission/beta/offers/${offerId}/comments`,
      { comment: { author_name: 'Ana', content: 'Once' } },
      'comment',
      'comments',
    ],
  ] as const)("%s retried after a 5xx with the same key is the first try's, made once", async (_what, iface, urlOf, body, field, table) => {
    const client = await h.client(iface);
    const url = urlOf(await seedOffer(h, sub.clientId));
    const key = newKey();
    const apiKey = iface === 'submission' ? sub.key : client.key;
    const clientId = iface === 'submission' ? sub.clientId : client.clientId;
    const first = await send('POST', url, apiKey, key, body);
    expect(first.statusCode).toBe(200);
    const id = first.json()[field].id as string;
    // The first answer was a 5xx (say, the read after the insert failed): not kept, the claim released.
    await h.services.db.deleteFrom('idempotency_keys').where('client_id', '=', clientId).where('key', '=', key).execute();
    const retry = await send('POST', url, apiKey, key, body);
    expect([retry.statusCode, retry.headers['idempotent-replayed'], retry.json()[field].id]).toEqual([200, undefined, id]);
    expect(await h.services.db.selectFrom(table).select('id').where('id', '=', id).execute()).toHaveLength(1);
    // Without a key each POST makes its own.
    const plain = await send('POST', url, apiKey, undefined, body);
    expect(plain.json()[field].id).not.toBe(id);
  });
});
