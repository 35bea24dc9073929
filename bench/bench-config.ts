import { loadConfig, type Config } from '../platform/config';

/**
 * The service's configuration for a bench on its own stack: no rate limit (the load is the point),
 * no logs (writing them would be measured), and a database pool sized for concurrency 32.
 */
export function benchConfig(stackEnv: Record<string, string>): Readonly<Config> {
  return loadConfig({
    ...process.env,
    ...stackEnv,
    RATE_LIMIT_PER_SECOND: '1000000',
    LOG_LEVEL: 'silent',
    DATABASE_POOL_SIZE: '20',
  });
}
