import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createHarness, type Harness } from '../setup/harness';
import { documentedOperations, pagesOutsideDocuments, type Operation, type Page } from './documents';
import { brokenInvariants, failedOrStuckWorkflows } from './invariants';
import { makeRealIds } from './real-ids';
import { choicesFor, type FuzzRequest, operationRequest, pageRequest, warmUp } from './requests';
import { eventually } from '../setup/eventually';

/*
 * The fuzz lane (docs/decisions/0070-fuzz-lane.md): requests generated from the three published
 * OpenAPI documents and the app's other routes, plausible then broken one way at a time, sent over
 * real connections to the API with a worker. Request i of seed S is always the same request:
 * `FUZZ_SEED=S FUZZ_REQUESTS=N npm run test:fuzz` replays a run, or runs a long one.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 1200);
const IN_FLIGHT = 6;
const SLOWEST_MS = 10_000;
const HEALTH_WITHIN_MS = 1_000;
/** An operator of the review console, so that its pages are fuzzed past the sign-in gate too. */
const OPERATOR = { name: 'fuzz-operator', password: 'fuzz operator passphrase' };

type Outcome = { request: FuzzRequest; status: number | 'reset' | 'timeout'; ms: number; detail?: string; wrong?: string };

/**
 * What is wrong with an answer besides its status: a stack trace anywhere, or (an operation of the
 * documents, not a page) a refusal outside the error envelope of docs/errors.md, in JSON or XML.
 */
function wrongAnswer(operation: boolean, res: { status: number; text: string }): string | undefined {
  if (/\n\s+at .+:\d+:\d+/.test(res.text)) return 'a stack trace in the answer';
  if (!operation || res.status < 400 || res.status >= 500 || res.text === '') return undefined;
  if (/<status>ERROR<\/status>/.test(res.text) && /<code>[^<]+<\/code>/.test(res.text)) return undefined;
  try {
    const body = JSON.parse(res.text) as { status?: string; errors?: Array<{ code?: unknown }> };
    if (body.status === 'ERROR' && typeof body.errors?.[0]?.code === 'string') return undefined;
  } catch {
    // neither JSON nor the XML envelope
  }
  return 'a refusal outside the error envelope';
}

describe('fuzz: every documented operation and every page, hostile input', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await createHarness({
      worker: true,
      env: { RATE_LIMIT_PER_SECOND: '100000', DEVELOPER_SIGNUP: 'on' },
      fixed: { DEVELOPER_SIGNUPS_PER_HOUR: 1000 },
    });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => h?.close());

  async function send(r: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string;
  }): Promise<{ status: number; text: string }> {
    const res = await fetch(`${base}${r.path}`, {
      method: r.method,
      headers: r.headers,
      body: r.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(SLOWEST_MS),
    });
    return { status: res.status, text: await res.text() };
  }

  it(
    'answers every request with a documented status, in time, and leaves every invariant true',
    async () => {
      const ops = await documentedOperations();
      const pages = pagesOutsideDocuments(h.app.registeredRoutes, ops);
      const targets: Array<Operation | Page> = [...ops, ...pages];
      const ids = await makeRealIds(h, ops, send);
      ids.keys.developer = ids.keys.submission;
      ids.keys.ops = await h.operator(OPERATOR.name, OPERATOR.password);
      warmUp(ops);

      const lag = monitorEventLoopDelay({ resolution: 20 });
      lag.enable();
      const health: number[] = [];
      let probing = true;
      const probe = (async () => {
        while (probing) {
          const t = Date.now();
          await fetch(`${base}/health`, { signal: AbortSignal.timeout(SLOWEST_MS) })
            .then((r) => r.text())
            .catch(() => undefined);
          health.push(Date.now() - t);
          await new Promise((r) => setTimeout(r, 250));
        }
      })();

      const outcomes: Outcome[] = [];
      const covered = new Set<string>();
      const laneErrors: string[] = [];
      const started = Date.now();
      let next = 0;
      let repeatKey = 'fuzz-repeat';
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          for (let i = next++; i < REQUESTS; i = next++) {
            const target = targets[i % targets.length];
            const c = choicesFor(SEED, i);
            let request: FuzzRequest;
            try {
              request = 'bodies' in target ? operationRequest(target, ids, c, repeatKey) : pageRequest(target, ids, c);
            } catch (err) {
              // A bug of the lane's own: reported with what replays it, and the run goes on.
              laneErrors.push(`request ${i} of seed ${SEED} (${target.method} ${target.path}): ${String(err)}`);
              continue;
            }
            if (request.headers['idempotency-key']) repeatKey = request.headers['idempotency-key'];
            covered.add(request.target);
            const t = Date.now();
            try {
              const res = await send(request);
              const wrong = wrongAnswer('bodies' in target, res);
              outcomes.push({
                request,
                status: res.status,
                ms: Date.now() - t,
                detail: res.status >= 500 || wrong ? res.text.slice(0, 300) : undefined,
                wrong,
              });
            } catch (err) {
              const timeout = (err as Error).name === 'TimeoutError';
              outcomes.push({
                request,
                status: timeout ? 'timeout' : 'reset',
                ms: Date.now() - t,
                detail: String((err as { cause?: unknown }).cause ?? err),
              });
            }
          }
        }),
      );
      const seconds = (Date.now() - started) / 1000;
      probing = false;
      await probe;
      lag.disable();

      const failures = outcomes.filter((o) => typeof o.status !== 'number' || o.status >= 500 || o.ms >= SLOWEST_MS || o.wrong);
      const statuses = outcomes.reduce<Record<string, number>>((m, o) => ({ ...m, [o.status]: (m[o.status] ?? 0) + 1 }), {});
      console.log(
        `fuzz: seed ${SEED}, ${outcomes.length} requests in ${seconds.toFixed(0)} s, ${covered.size} of ${targets.length} operations and pages ` +
          `(${ops.length} documented), statuses ${JSON.stringify(statuses)}, slowest ${Math.max(...outcomes.map((o) => o.ms))} ms, ` +
          `/health slowest ${Math.max(...health)} ms, event loop delay max ${(lag.max / 1e6).toFixed(0)} ms, ` +
          `${failures.length} failures`,
      );
      for (const f of failures.slice(0, 20)) console.error(replayable(f));

      // Whatever was sent, nothing half-done is left: workflows settle (none failed or stuck) and the invariants hold.
      let stuck: string[] = [];
      await eventually(
        () => `workflows to settle: ${stuck.join('\n')}`,
        async () => (stuck = await failedOrStuckWorkflows(h.services)).length === 0,
        { timeoutMs: 20_000 },
      ).catch(() => undefined);
      expect({
        failures: failures.slice(0, 20).map(replayable),
        laneErrors: laneErrors.slice(0, 5),
        healthSlowerThan1s: health.filter((ms) => ms > HEALTH_WITHIN_MS),
        uncovered: REQUESTS >= targets.length ? targets.map((t) => `${t.method} ${t.path}`).filter((t) => !covered.has(t)) : [],
        brokenInvariants: await brokenInvariants(h.services.db),
        failedOrStuckWorkflows: stuck,
      }).toEqual({ failures: [], laneErrors: [], healthSlowerThan1s: [], uncovered: [], brokenInvariants: [], failedOrStuckWorkflows: [] });
    },
    120_000 + REQUESTS * 200,
  ); // a long run by hand (FUZZ_REQUESTS) gets the time it needs
});

/** A failure as a replayable request: method, path, headers, body (cut at 2,000 characters), and what came back. */
function replayable(o: Outcome): string {
  const r = o.request;
  const body = r.body === undefined ? '' : `\n  body (${r.body.length} chars): ${r.body.slice(0, 2000)}`;
  return `${o.status}${o.wrong ? ` (${o.wrong})` : ''} after ${o.ms} ms [${r.how}] ${r.method} ${r.path}\n  headers: ${JSON.stringify(r.headers)}${body}\n  answer: ${o.detail ?? ''}`;
}
