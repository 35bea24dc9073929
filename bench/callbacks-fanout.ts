import { createApiKey } from '../services/api-clients';
import { setEndpoint } from '../store/callback-endpoints';
import { changeOfferStatus } from '../store/offers';
import type { Services } from '../main';
import { approvedOffer, dealInput } from './offer-fixture';
import { startCallbackReceiver } from './callback-receiver';

/** What the summary reads (bench/summary.ts): seconds from one offer change until every endpoint had it. */
export interface CallbacksFanoutResult {
  endpoints: number;
  /** Endpoints that received the change before the time limit. */
  delivered: number;
  seconds: number;
}

const TIME_LIMIT_MS = 120_000;

/**
 * One offer change seen by `endpoints` publishers: that many distribution clients, each with its
 * own endpoint on one local receiver (loopback only, a path per endpoint, 200 at once). The clock
 * runs from the change's commit until the receiver has the change's event at every endpoint.
 */
export async function benchCallbacksFanout(
  services: Pick<Services, 'db' | 'config'>,
  advertiserClientId: string,
  say: (m: string) => void,
  endpoints = 1000,
): Promise<CallbacksFanoutResult> {
  const offerId = await approvedOffer(services.db, advertiserClientId, dealInput());
  const seen = new Set<string>();
  let eventId: string | undefined;
  let done: () => void = () => undefined;
  const all = new Promise<void>((r) => (done = r));
  const receiver = await startCallbackReceiver((event, path) => {
    if (event.data?.offer?.id !== offerId || (eventId && event.id !== eventId)) return;
    eventId = event.id;
    seen.add(path);
    if (seen.size === endpoints) done();
  });
  const { port } = receiver;
  try {
    say(`callbacks fan-out: ${endpoints} publisher endpoints…`);
    for (let i = 0; i < endpoints; i++) {
      const { clientId } = await createApiKey(services, { iface: 'distribution', environment: services.config.SERVICE_ENVIRONMENT });
      await setEndpoint(services.db, { clientId, url: `http://127.0.0.1:${port}/hook/${i}`, format: 'json', secretKeys: undefined });
    }
    say(`callbacks fan-out: one offer change to ${endpoints} endpoints…`);
    const started = performance.now();
    await changeOfferStatus(services.db, { key: `bench:${offerId}:fanout`, offerId, to: 'suspended', actor: 'advertiser' });
    await Promise.race([all, new Promise((r) => setTimeout(r, TIME_LIMIT_MS))]);
    const seconds = Math.round(((performance.now() - started) / 1000) * 100) / 100;
    return { endpoints, delivered: seen.size, seconds };
  } finally {
    receiver.close();
    // Later sections must not pay for a thousand endpoints.
    await services.db
      .updateTable('callback_endpoints')
      .set({ status: 'disabled', disabled_reason: 'bench over', disabled_at: new Date() })
      .where('url', 'like', `http://127.0.0.1:${port}/hook/%`)
      .execute();
  }
}
