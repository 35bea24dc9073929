import { Client, Connection } from '@temporalio/client';
import type { ServiceDeps } from '../services/deps';
import type { Config } from './config';
import { createDb } from '../store/db';
import type { Logger } from './logger';
import { createObjectStore } from './object-store';
import type { Endpoints } from './stack';

export interface Services extends ServiceDeps {
  temporalConnection: Connection;
  close(): Promise<void>;
}

/** Connects to the three backends once; the API, the worker's activities and the admin CLI share this. */
export async function connectServices(config: Readonly<Config>, endpoints: Endpoints, log: Logger): Promise<Services> {
  const db = createDb(endpoints.databaseUrl, config.DATABASE_POOL_SIZE);
  const temporalConnection = await Connection.connect({ address: endpoints.temporalAddress });
  const temporal = new Client({ connection: temporalConnection, namespace: endpoints.temporalNamespace });
  const store = createObjectStore(endpoints.s3);
  return {
    config,
    db,
    temporal,
    temporalConnection,
    store,
    log,
    async close() {
      await Promise.allSettled([db.destroy(), temporalConnection.close()]);
    },
  };
}
