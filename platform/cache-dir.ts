import os from 'node:os';
import path from 'node:path';

/** A folder of ours in the user's cache (`~/.cache/offer-marketplace/<name>`), outside any clone. */
export function cacheDir(name: string): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'offer-marketplace', name);
}
