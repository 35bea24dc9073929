import type { Client } from '@temporalio/client';
import type { Config } from '../infra/config';
import type { Db } from '../store/db';
import type { Logger } from '../infra/logger';
import type { ObjectStore } from '../infra/object-store';

/** What the API needs from the outside world, built once by infra/services.ts. */
export interface ServiceDeps {
  config: Readonly<Config>;
  db: Db;
  temporal: Client;
  store: ObjectStore;
  log: Logger;
}
