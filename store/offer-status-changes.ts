import { listen, type Db } from './db';
import { findOfferStatus } from './offers';

/**
 * The channel the `offers_status_notify` trigger (migration 0039) notifies, with the offer's id as
 * the payload, when a committed write changed an offer's status.
 */
const OFFER_STATUS_CHANNEL = 'offer_status';

/**
 * Waits until the offer's status is no longer `from`, for at most `timeoutMs`; returns the status
 * then (still `from` when the deadline came first; undefined for an unknown offer). It LISTENs
 * before it reads, so a change committed between the read and the wait still wakes it. A broken
 * listening connection ends the wait early, after one last read.
 */
export async function waitForOfferStatusChange(db: Db, offerId: string, from: string, timeoutMs: number): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  let wake = (): void => undefined;
  const listener = await listen(
    db,
    OFFER_STATUS_CHANNEL,
    (changedId) => {
      if (changedId === offerId) wake();
    },
    () => wake(),
  );
  try {
    for (;;) {
      // Armed before the read: a notification arriving while it runs is not lost.
      const notified = new Promise<void>((resolve) => (wake = resolve));
      const status = await findOfferStatus(db, offerId);
      const left = deadline - Date.now();
      if (status !== from || left <= 0 || !listener.alive) return status;
      await eitherOr(notified, left);
    }
  } finally {
    await listener.close();
  }
}

/** Resolves when `notified` does or after `ms`, whichever comes first (the timer cleared either way). */
async function eitherOr(notified: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([notified, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
