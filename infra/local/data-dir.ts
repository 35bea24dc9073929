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

/** The umask of the servers we spawn (infra/local/child-process.ts): what they create is owner-only, files 0600 and folders 0700. */
export const OWNER_ONLY_UMASK = 0o077;

/**
 * Makes DATA_DIR owner-only (issue 43 item 8: it holds redemption codes, customer names, secrets):
 * takes group and other rights off whatever a previous run left (files, folders; symlinks are not followed). DATA_DIR itself is 0700, or 0711
 * when root runs Postgres as the `postgres` user with its cluster inside: that user may walk through
 * to its own folder (0700, which Postgres keeps itself, not touched here), never list or read the rest.
 */
export function secureDataDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const cluster = path.join(dataDir, 'postgres');
  const clusterInside = process.getuid?.() === 0 && fs.lstatSync(cluster, { throwIfNoEntry: false })?.isDirectory() === true;
  fs.chmodSync(dataDir, clusterInside ? 0o711 : 0o700);
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (p === cluster || entry.isSymbolicLink()) continue;
      const mode = fs.lstatSync(p, { throwIfNoEntry: false })?.mode;
      // Gone meanwhile (a server still stopping): nothing to secure.
      if (mode === undefined) continue;
      if (mode & 0o077) fs.chmodSync(p, mode & 0o700);
      if (entry.isDirectory()) walk(p);
    }
  };
  walk(dataDir);
}
