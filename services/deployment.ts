import type { ServiceEnvironment } from '../domain/environment';
import { readSetting, recordSetting } from '../store/deployment-settings';
import type { ServiceDeps } from './deps';

/** A start (or an operator command) against a database recorded for the other environment. */
export class EnvironmentMismatchError extends Error {}

const ENVIRONMENT = 'environment';

const mismatch = (recorded: string, wanted: ServiceEnvironment, since?: Date) =>
  new EnvironmentMismatchError(
    `this database serves the ${recorded} environment${since ? ` (recorded at its first start, ${since.toISOString()})` : ''}; ` +
      `refusing to run as ${wanted}. Sandbox and production never share a database: start ${wanted} with its own ` +
      `DATA_DIR or DATABASE_URL, or set SERVICE_ENVIRONMENT=${recorded} to serve ${recorded}.`,
  );

/**
 * On every start: records the environment on the database's first start, and refuses to start as
 * the other one afterwards, so a production key can never list or buy sandbox offers.
 */
export async function claimEnvironment({ db }: Pick<ServiceDeps, 'db'>, environment: ServiceEnvironment): Promise<void> {
  const recorded = await recordSetting(db, ENVIRONMENT, environment);
  if (recorded.value !== environment) throw mismatch(recorded.value, environment, recorded.recorded_at);
}

/**
 * The environment this deployment serves, for operators' commands: the configured one, checked
 * against the database's record when there is one.
 */
export async function servedEnvironment({ db }: Pick<ServiceDeps, 'db'>, configured: ServiceEnvironment): Promise<ServiceEnvironment> {
  const recorded = await readSetting(db, ENVIRONMENT);
  if (recorded !== undefined && recorded !== configured) throw mismatch(recorded, configured);
  return configured;
}
