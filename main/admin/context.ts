import { InvalidArgumentError } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { checkCallbackUrl, UnsafeCallbackUrlError } from '../../platform/url-safety';
import type { CallbackUrlCheck } from '../../services/callbacks';
import { createDb, type Db } from '../../store/db';
import { loadConfig, type Config } from '../../platform/config';
import { createLogger, type Logger } from '../../platform/logger';
import { createObjectStore, type ObjectStore } from '../../platform/object-store';
import { resolveEndpoints, type Endpoints } from '../../platform/endpoints';
import { temporalConnectionOptions } from '../../platform/temporal-connection';
import { adminIo } from './io';

/**
 * What admin commands reach, connected lazily: a command that only touches Postgres never dials
 * Temporal. Endpoints come from configuration or from the running `npm start`'s stack file.
 */
export class AdminContext {
  // A bad setting throws ConfigError, which main/admin/run.ts reports by variable name.
  readonly config: Readonly<Config> = loadConfig(adminIo().env);
  private endpointsCache?: Endpoints;
  private dbCache?: Db;
  private storeCache?: ObjectStore;
  private logCache?: Logger;
  private connection?: Connection;
  private client?: Client;

  get endpoints(): Endpoints {
    return (this.endpointsCache ??= resolveEndpoints(this.config));
  }

  get db(): Db {
    return (this.dbCache ??= createDb(this.endpoints.databaseUrl, 2));
  }

  get store(): ObjectStore {
    return (this.storeCache ??= createObjectStore(this.endpoints.s3));
  }

  /** Warnings and errors of the services a command calls, on stderr (stdout holds only the result). */
  get log(): Logger {
    return (this.logCache ??= createLogger(this.config.LOG_LEVEL, { name: 'admin', stream: adminIo().stderr }));
  }

  /** The callback URL check the worker's delivery activities apply too. */
  get callbackUrlCheck(): CallbackUrlCheck {
    return {
      refuseUrl: async (url, environment) => {
        try {
          await checkCallbackUrl(url, environment);
          return null;
        } catch (err) {
          if (err instanceof UnsafeCallbackUrlError) return err.message;
          throw err;
        }
      },
    };
  }

  async temporal(): Promise<Client> {
    if (!this.client) {
      this.connection = await Connection.connect(temporalConnectionOptions(this.config.temporal, this.endpoints.temporalAddress));
      this.client = new Client({ connection: this.connection, namespace: this.endpoints.temporalNamespace });
    }
    return this.client;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.dbCache?.destroy(), this.connection?.close()]);
  }
}

/** An operator mistake: printed as one line on stderr, exit code 1, no stack trace. */
export class AdminError extends Error {}

/** Prints a command's result: plain text as is, anything else as JSON. */
export function output(result: unknown): void {
  adminIo().stdout.write(typeof result === 'string' ? `${result}\n` : `${JSON.stringify(result, null, 2)}\n`);
}

/** A commander option parser: a whole number of at least `min`, else commander's usage error. */
export const wholeNumber =
  (min = 0) =>
  (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(min ? `a whole number of at least ${min}` : 'a whole number');
    return n;
  };
