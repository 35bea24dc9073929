import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A random credential for a local server, made on first start and kept in DATA_DIR so the
 * next start (which reuses the same data files) presents the same one.
 */
export function persistedSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, 'secrets', name);
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = crypto.randomBytes(18).toString('base64url');
  fs.writeFileSync(file, value, { mode: 0o600 });
  return value;
}
