import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A random credential for a local server, made on first start and kept in DATA_DIR so the
 * next start (which reuses the same data files) presents the same one.
 */
export function persistedSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, 'secrets', name);
  // Owner-only, and tightened on every start: `mode` applies only to what is being created, so a
  // folder or file made before (or by hand) would otherwise keep whatever mode it has.
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.chmodSync(path.dirname(file), 0o700);
  if (fs.existsSync(file)) {
    fs.chmodSync(file, 0o600);
    return fs.readFileSync(file, 'utf8').trim();
  }
  const value = crypto.randomBytes(18).toString('base64url');
  fs.writeFileSync(file, value, { mode: 0o600 });
  return value;
}
