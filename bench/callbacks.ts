import { setEndpoint } from '../store/callback-endpoints';
import { changeOfferStatus } from '../store/offers';
import type { Services } from '../main';
import { say } from './bench-stack';
import { startCallbackReceiver } from './callback-receiver';
import { approvedOffer, dealInput } from './offer-fixture';

export interface CallbacksResult {
  events: number;
  delivered: number;
  seconds: number;
  perSecond: number;
}

/**
 * Callbacks: deliveries per second to a local receiver that answers 200 at once, for the
 * suspensions and resumptions of 100 offers of one advertiser.
 */
export async function benchCallbacks(services: Pick<Services, 'db'>, clientId: string): Promise<CallbacksResult> {
  const N = 200;
  // Only the suspensions and resumptions below count, each event once: the client's endpoint also
  // hears of the offers' creation and approval, and a retried delivery repeats an event.
  const counted = new Set<string>();
  let offerIds = new Set<string>();
  let done: () => void = () => undefined;
  const all = new Promise<void>((r) => (done = r));
  const receiver = await startCallbackReceiver((event) => {
    const made = event.type === 'offer.status_changed' && ['suspended', 'resumed'].includes(event.data?.new_status ?? '');
    if (!made || !offerIds.has(event.data?.offer?.id ?? '') || counted.has(event.id)) return;
    counted.add(event.id);
    if (counted.size === N) done();
  });
  const { port } = receiver;
  try {
    await setEndpoint(services.db, { clientId, url: `http://127.0.0.1:${port}/hook`, format: 'json', secretKeys: undefined });
    const offers = await Promise.all(Array.from({ length: N / 2 }, () => approvedOffer(services.db, clientId, dealInput())));
    offerIds = new Set(offers);
    say(`callbacks: ${N} events to a local receiver…`);
    const started = performance.now();
    for (const id of offers) {
      await changeOfferStatus(services.db, { key: `bench:${id}:suspend`, offerId: id, to: 'suspended', actor: 'advertiser' });
      await changeOfferStatus(services.db, { key: `bench:${id}:resume`, offerId: id, to: 'resumed', actor: 'advertiser' });
    }
    await Promise.race([all, new Promise((r) => setTimeout(r, 120_000))]);
    const seconds = (performance.now() - started) / 1000;
    return {
      events: N,
      delivered: counted.size,
      seconds: Math.round(seconds * 10) / 10,
      perSecond: Math.round((counted.size / seconds) * 10) / 10,
    };
  } finally {
    receiver.close();
  }
}
