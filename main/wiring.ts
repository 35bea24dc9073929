import { Client, Connection } from '@temporalio/client';
import type { ServiceDeps } from '../services/deps';
import type { Config } from '../platform/config';
import { createDb } from '../store/db';
import { createRateLimitCounts } from '../store/rate-limits';
import type { Logger } from '../platform/logger';
import { businessMetrics } from '../platform/metrics';
import { createObjectStore } from '../platform/object-store';
import type { Endpoints } from '../platform/endpoints';
import { startTracing, type Tracing } from '../platform/tracing';
import { temporalConnectionOptions } from '../platform/temporal-connection';
import { createOffer } from '../services/offers';
import type { OfferCreation } from '../activities/deps';

export interface Services extends ServiceDeps {
  temporalConnection: Connection;
  /** Set when OTEL_EXPORTER_OTLP_ENDPOINT is: the worker started beside these services traces too. */
  tracing?: Tracing;
  /** The offer import's steps create each offer through the same service as POST /offers. */
  offerCreation: OfferCreation;
  close(): Promise<void>;
}

/** Connects to the three backends once; the API, the worker's activities and the admin CLI share this. */
export async function connectServices(config: Readonly<Config>, endpoints: Endpoints, log: Logger): Promise<Services> {
  const db = createDb(endpoints.databaseUrl, config.DATABASE_POOL_SIZE);
  const temporalConnection = await Connection.connect(temporalConnectionOptions(config.temporal, endpoints.temporalAddress));
  const tracing = startTracing(config);
  const temporal = new Client({
    connection: temporalConnection,
    namespace: endpoints.temporalNamespace,
    interceptors: tracing ? { workflow: [tracing.clientInterceptor] } : undefined,
  });
  const store = createObjectStore(endpoints.s3);
  const rateLimits = createRateLimitCounts(endpoints.databaseUrl, log);
  const services: Services = {
    config,
    db,
    temporal,
    temporalConnection,
    store,
    log,
    metrics: businessMetrics,
    rateLimits,
    tracing,
    temporalUiUrl: config.TEMPORAL_UI_URL ?? endpoints.temporalUiUrl,
    async close() {
      await Promise.allSettled([db.destroy(), rateLimits.close(), temporalConnection.close(), tracing?.shutdown()]);
    },
    offerCreation: async (clientId, offer, id) => void (await createOffer(services, clientId, offer, { id })),
  };
  return services;
}
