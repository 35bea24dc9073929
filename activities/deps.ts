import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Db } from '../store/db';
import type { Logger } from '../platform/logger';
import type { BusinessMetrics } from '../platform/metrics';
import type { ObjectStore } from '../platform/object-store';
import type { OrderHooks } from '../store/order-placing';
import type { ImportHooks } from '../workflows/voucher-import-messages';
import type { OfferCreate } from '../schemas/offer-create';

/**
 * Creates one offer as POST /offers does (services/offers.ts `createOffer`, with the id given), for
 * the offer import's steps; built by main/wiring.ts, since activities do not import services.
 */
export type OfferCreation = (clientId: string, offer: OfferCreate, id: string) => Promise<void>;

/** What activities may touch. Each factory narrows this with Pick<> to what it really uses. */
export interface ActivityDeps {
  config: Readonly<Config>;
  db: Db;
  store: ObjectStore;
  temporal: Client;
  log: Logger;
  /** The business counters this process exposes on /metrics (platform/metrics.ts). */
  metrics: BusinessMetrics;
  /**
   * Aborted when this process's worker starts shutting down, so long-running activities (the
   * callback outbox pump) return at once instead of holding the shutdown for its grace time.
   */
  stopping?: AbortSignal;
  /** Creating an offer as POST /offers does (offer imports); main/wiring.ts sets it. */
  offerCreation?: OfferCreation;
  /** Test seams only (e.g. pausing an order between its stock and its vouchers); never set in production. */
  orderHooks?: OrderHooks;
  /** Test seams only (a worker stopped inside an import batch's transaction); never set in production. */
  importHooks?: ImportHooks;
}
