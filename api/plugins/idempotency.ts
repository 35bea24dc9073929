import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badIdempotencyKey } from '../../domain/idempotency';
import type { ServiceDeps } from '../../services/deps';
import {
  claimKeyWaiting,
  endClaim,
  idempotencyRequestHash,
  type Claim,
  type ClaimedKey,
  type StoredAnswer,
} from '../../services/idempotency';
import { ApiError, invalidField } from '../errors';

/*
 * `Idempotency-Key` on every request that changes something (POST, PUT, PATCH, DELETE) of a scope
 * (docs/decisions/0061-idempotency-keys.md; docs/errors.md; docs/resources.md "Retrying safely").
 * After the key check and the body's parsing, before validation: the key is claimed for the
 * client; the first complete answer is stored and replayed with `Idempotent-Replayed: true`: its
 * value (a resource, an error), serialized again in the format the retry asks for (JSON or XML),
 * or its bytes when it was sent as text (a CSV, a page). A 5xx is not an answer to keep: the claim
 * is released and a retry runs again. A 202 is kept: the change was accepted, and running it again
 * would make a second. An answer carrying a secret (a route with `answersSecret`) is never stored:
 * its replay is 409 `idempotency_key_secret_shown` (docs/decisions/0072-csv-writer-and-secrets.md).
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's success answers a secret shown once (a one-time code, an API key): never stored for a replay. */
    answersSecret?: boolean;
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/** What a replay sends again besides the body: what describes it, and where it points. */
const KEPT_HEADERS = ['content-type', 'content-disposition', 'location', 'cache-control', 'retry-after', 'link', 'deprecation', 'sunset'];

/**
 * How long a retry waits for the same request, still running, to answer before it is told 409:
 * parallel retries of one redeem (a till's) mostly get the answer; most requests answer well within it.
 */
const WAIT_MS = 5000;

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface IdempotencyOptions {
  deps: Pick<ServiceDeps, 'db'>;
  /** Whose keys these are: the API key's client. */
  clientOf?: (request: FastifyRequest) => string;
  /** Where keys are not taken, why (answered as 422 on the header). */
  refuse?: string;
}

/** The key and what this request still owes it (an answer, or a release). */
const claimed = new WeakMap<FastifyRequest, ClaimedKey>();
/** An upload's key, claimed once its route has read the file (`claimUpload`). */
const deferred = new WeakMap<FastifyRequest, { deps: IdempotencyOptions['deps']; clientId: string; key: string }>();

const inProgress = () =>
  new ApiError(
    409,
    'idempotency_key_in_progress',
    'a request with this Idempotency-Key is still running; retry after a moment with the same key and body to get its answer',
    { field: IDEMPOTENCY_HEADER },
  );

const secretShown = () =>
  new ApiError(
    409,
    'idempotency_key_secret_shown',
    'this request was answered once with a secret, which is shown once and never stored, so it is not answered again; ' +
      'the change it made stands: read the resource, and ask for a new secret where you need one (e.g. POST /redemption_staff/{id}/sign_in)',
    { field: IDEMPOTENCY_HEADER },
  );

const reused = () =>
  new ApiError(
    422,
    'idempotency_key_reused',
    'this Idempotency-Key was used for another request (another method, path or body); a retry sends the same request again, a new request takes a new key',
    { field: IDEMPOTENCY_HEADER },
  );

/** Claims the key, waiting a little for a racing twin to finish; sends the replay, or throws the refusal. */
async function claim(deps: IdempotencyOptions['deps'], request: FastifyRequest, reply: FastifyReply, keyed: ClaimedKey) {
  const c = await claimKeyWaiting(deps, keyed, WAIT_MS);
  if (c.kind === 'claimed') return void claimed.set(request, keyed);
  if (c.kind === 'reused') throw reused();
  if (c.kind === 'replay') return replay(reply, c);
  reply.header('retry-after', '1');
  throw inProgress();
}

/** Sends a stored answer again: a value in this request's format, bytes as they were; a secret's answer is refused. */
function replay(reply: FastifyReply, c: Extract<Claim, { kind: 'replay' }>) {
  if (c.answer === 'secret_shown') throw secretShown();
  reply.code(c.status).headers({ ...c.headers, [REPLAYED_HEADER]: 'true' });
  return reply.send(c.answer === 'value' ? storedValue(c.body) : c.body);
}

/** The answer's value before its serialization (JSON or XML), kept to replay in a retry's format. */
const values = new WeakMap<FastifyRequest, unknown>();

/*
 * A kept value is JSON with its Dates and BigInts tagged (`{"@@date": …}`, `{"@@bigint": …}`), so that
 * the retry's serializer (the route's schema, JSON or XML) gets back what the handler answered.
 */
const DATE_TAG = '@@date';
const BIGINT_TAG = '@@bigint';

/** The value as kept; undefined for one JSON cannot hold (its bytes are kept then). */
function serializedValue(value: unknown): Buffer | undefined {
  try {
    return Buffer.from(
      JSON.stringify(value, function tag(this: Record<string, unknown>, key, v: unknown) {
        const raw = this[key];
        if (Object.prototype.toString.call(raw) === '[object Date]') return { [DATE_TAG]: (raw as Date).toISOString() };
        return typeof v === 'bigint' ? { [BIGINT_TAG]: v.toString() } : v;
      }),
    );
  } catch {
    return undefined;
  }
}

/** A kept value as the handler answered it. */
const storedValue = (body: Buffer): unknown =>
  JSON.parse(body.toString('utf8'), (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === DATE_TAG) return new Date((v as Record<string, string>)[DATE_TAG]);
      if (keys.length === 1 && keys[0] === BIGINT_TAG) return BigInt((v as Record<string, string>)[BIGINT_TAG]);
    }
    return v;
  });

const NO_SECRET: StoredAnswer = { status: 409, headers: {}, body: Buffer.alloc(0), kind: 'secret_shown' };

/** The answer as it goes out, to keep; undefined when it is not one to keep (a stream). */
function answerOf(request: FastifyRequest, reply: FastifyReply, payload: unknown): StoredAnswer | undefined {
  if (request.routeOptions.config.answersSecret && reply.statusCode < 300) return NO_SECRET;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const v = reply.getHeader(name);
    if (v !== undefined) headers[name] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  const value = values.get(request);
  const serialized = value === undefined ? undefined : serializedValue(value);
  if (serialized) {
    // The replay's serializer sets the retry's own content type.
    delete headers['content-type'];
    return { status: reply.statusCode, headers, body: serialized, kind: 'value' };
  }
  return { status: reply.statusCode, headers, body: Buffer.from(payload), kind: 'bytes' };
}

/**
 * Names this keyed request once claimed (undefined without a key): the same for every retry of it (the
 * key and the request's hash), another once the key, expired, is used again for another request. A
 * route names what it makes after it, so that a retry after a 5xx (never replayed) finds what the
 * first try made instead of making it twice.
 */
export const keyedRequestOf = (request: FastifyRequest): string | undefined => {
  const keyed = claimed.get(request);
  return keyed && `${keyed.key}\n${keyed.requestHash}`;
};

/** Whether this upload carries an Idempotency-Key: its route then reads the file whole and calls `claimUpload`. */
export const isKeyedUpload = (request: FastifyRequest) => deferred.has(request);

/**
 * Claims an upload's key once its route has read the file (`upload`: what names it, e.g. its name
 * and SHA-256). True when the answer has been sent (a replay): the route then stores nothing.
 */
export async function claimUpload(request: FastifyRequest, reply: FastifyReply, upload: unknown): Promise<boolean> {
  const d = deferred.get(request);
  if (!d) return false;
  deferred.delete(request);
  await claim(d.deps, request, reply, {
    clientId: d.clientId,
    key: d.key,
    requestHash: idempotencyRequestHash(request.method, request.url, upload),
  });
  return reply.sent;
}

/** Adds the hooks to `app` (a scope: an interface, the developer API); call after its key check. */
export async function idempotencyPlugin(app: FastifyInstance, opts: IdempotencyOptions) {
  const { deps } = opts;
  app.addHook('preValidation', async (request, reply) => {
    const value = request.headers[IDEMPOTENCY_HEADER];
    if (value === undefined || !CHANGES.has(request.method)) return;
    const bad = badIdempotencyKey(value);
    if (bad) throw invalidField(IDEMPOTENCY_HEADER, `${IDEMPOTENCY_HEADER}: ${bad}`);
    if (opts.refuse || !opts.clientOf) throw invalidField(IDEMPOTENCY_HEADER, opts.refuse ?? 'not taken here');
    const clientId = opts.clientOf(request);
    // An upload's body is a stream its route reads: it is claimed once read (`claimUpload`).
    if (request.routeOptions.config.bodyIsFile) return void deferred.set(request, { deps, clientId, key: value as string });
    const keyed = { clientId, key: value as string, requestHash: idempotencyRequestHash(request.method, request.url, request.body) };
    return claim(deps, request, reply, keyed);
  });

  app.addHook('preSerialization', async (request, _reply, payload) => {
    if (claimed.has(request)) values.set(request, payload);
    return payload;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const keyed = claimed.get(request);
    if (!keyed) return payload;
    claimed.delete(request);
    const answer = reply.statusCode >= 500 ? undefined : answerOf(request, reply, payload);
    try {
      await endClaim(deps, keyed, answer);
    } catch (err) {
      // The answer still goes out; the claim, unfinished, is taken over by a retry after IDEMPOTENCY_STALE_SECONDS.
      request.log.warn({ err }, 'idempotency key not recorded');
    }
    return payload;
  });

  // A request that ends without an answer sent (the client went away first) gives its claim up.
  app.addHook('onResponse', async (request) => {
    const keyed = claimed.get(request);
    if (!keyed) return;
    claimed.delete(request);
    await endClaim(deps, keyed).catch((err: unknown) => request.log.warn({ err }, 'idempotency key not released'));
  });
}
