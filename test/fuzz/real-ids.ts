import type { Harness } from '../setup/harness';
import { seedOffer, validOffer } from '../setup/fixtures';
import { DIST, SUB } from '../setup/paths';
import type { Operation } from './documents';
import { choicesFor, type Ids, operationRequest } from './requests';

/*
 * Real ids for the fuzz lane, so that its requests get past the lookups: offers written in set-up,
 * then one plausible request of every documented POST and PUT (generated from its schema like the
 * rest, never broken), whose answers' ids and links are kept by resource.
 */

const singular = (k: string) => k.replace(/ies$/, 'y').replace(/s$/, '');

/** Walks an answer: each object with a string `id`, under key K, is a K; every link to this service is kept. */
export function collect(v: unknown, ids: Ids, under = ''): void {
  if (Array.isArray(v)) return v.forEach((x) => collect(x, ids, under));
  if (typeof v === 'string' && /^(https?:\/\/[^/]+)?\/(v|vouchers|merchant|downloads?|files)\b/.test(v) && v.length < 2000)
    ids.links.push(v.replace(/^https?:\/\/[^/]+/, ''));
  if (!v || typeof v !== 'object') return;
  const o = v as Record<string, unknown>;
  if (typeof o.id === 'string' && under) add(ids, singular(under), o.id);
  for (const [k, x] of Object.entries(o)) {
    if (k.endsWith('_id') && typeof x === 'string') add(ids, k.slice(0, -3), x);
    collect(x, ids, k);
  }
}

function add(ids: Ids, resource: string, id: string): void {
  const list = ids.byResource.get(resource) ?? [];
  if (!list.includes(id) && list.length < 20) list.push(id);
  ids.byResource.set(resource, list);
}

/** Makes the set-up's resources through `send` (the lane's own transport) and answers their ids. */
export async function makeRealIds(
  h: Harness,
  ops: Operation[],
  send: (r: { method: string; path: string; headers: Record<string, string>; body?: string }) => Promise<{ status: number; text: string }>,
): Promise<Ids> {
  const sub = await h.client('submission');
  const ids: Ids = {
    byResource: new Map(),
    keys: { submission: sub.key, distribution: await h.key('distribution', { reservations: true }) },
    links: [],
  };
  for (const status of ['approved', 'approved', 'pending'] as const) add(ids, 'offer', await seedOffer(h, sub.clientId, {}, status));
  add(ids, 'offer', await seedOffer(h, sub.clientId, { type: 'gift_card', price: { currency_code: 'USD', amount: 5000 } }));
  const json = (key: string) => ({ 'content-type': 'application/json', 'x-service-api-key': key });
  const direct: Array<[string, string, string, unknown]> = [
    [ids.keys.submission, 'POST', `${SUB}/offers`, { offer: validOffer() }],
    [ids.keys.distribution, 'POST', `${DIST}/accounts`, { account: { name: 'Fuzz blog', website_url: 'https://fuzz.example' } }],
    ...(ids.byResource.get('offer') ?? [])
      .slice(0, 2)
      .map(
        (id, i) =>
          [
            ids.keys.distribution,
            'POST',
            `${DIST}/orders`,
            { order: { order_number: `fuzz-${i}`, customer_name: 'Ada', items: [{ offer_id: id }] } },
          ] as [string, string, string, unknown],
      ),
  ];
  for (const [key, method, path, body] of direct)
    collect(JSON.parse((await send({ method, path, headers: json(key), body: JSON.stringify(body) })).text || '{}'), ids);
  // Twice over, so that an operation needing another's resource (a reservation needs an account) finds it.
  for (let round = 0; round < 2; round++) {
    for (const op of ops.filter((o) => o.method === 'POST' || o.method === 'PUT')) {
      const c = {
        ...choicesFor(round, 0),
        how: 'plausible' as const,
        realIds: true,
        accept: null,
        contentType: null,
        cookie: null,
        keyOf: null,
      };
      const req = operationRequest(op, ids, { ...c, xml: false, idempotencyKey: null, extraQuery: null }, '');
      const res = await send(req);
      if (res.status < 300) collect(safeJson(res.text), ids);
    }
  }
  return ids;
}

const safeJson = (t: string): unknown => {
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
};
