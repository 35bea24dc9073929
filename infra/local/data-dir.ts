import fs from 'node:fs';
import path from 'node:path';

/**
 * Where embedded Postgres clusters live when root runs the stack with a DATA_DIR the postgres user
 * cannot reach (a private temp folder): DATA_DIR/postgres then links here (infra/local/postgres.ts).
 */
export const ROOT_CLUSTERS = '/var/lib/offer-marketplace';

/**
 * Deletes a DATA_DIR and, when its cluster had to live under /var/lib/offer-marketplace (root with
 * a private DATA_DIR), that cluster too: otherwise every throwaway stack (tests, benchmarks)
 * would leave one behind.
 */
export function removeDataDir(dataDir: string, clusters = ROOT_CLUSTERS): void {
  const link = path.join(dataDir, 'postgres');
  if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) {
    const target = path.resolve(dataDir, fs.readlinkSync(link));
    if (target.startsWith(`${clusters}/`)) fs.rmSync(target, { recursive: true, force: true, maxRetries: 5 });
  }
  fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
}
