import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../../platform/cache-dir';
import { progress } from '../../platform/logger';

/** A server we build from its Go module, since no prebuilt download is reachable on our machines. */
export interface GoBinary {
  name: string;
  pkg: string;
  version: string;
  /** Environment variable that names an existing binary to use instead. */
  overrideVar: string;
}

export const TEMPORAL_CLI: GoBinary = {
  name: 'temporal',
  pkg: 'github.com/temporalio/cli/cmd/temporal',
  // v1.5.1's go.mod has no `replace` directive; later tags do, and `go install pkg@version` refuses those.
  version: 'v1.5.1',
  overrideVar: 'TEMPORAL_BIN',
};

export const MINIO_SERVER: GoBinary = {
  name: 'minio',
  pkg: 'github.com/minio/minio',
  // The module proxy refuses the RELEASE.2025-10-15 commit (9e49d5e7a648: "module version is not available");
  // this is the last commit of the archived community edition, the newest the proxy serves.
  version: 'v0.0.0-20260212201848-7aac2a2c5b7c',
  overrideVar: 'MINIO_BIN',
};

export const VERSITYGW: GoBinary = {
  name: 'versitygw',
  pkg: 'github.com/versity/versitygw/cmd/versitygw',
  version: 'v1.8.0',
  overrideVar: 'VERSITYGW_BIN',
};

const cacheRoot = () => cacheDir('bin');

function onPath(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const p = found.stdout.trim();
  return found.status === 0 && p ? p : undefined;
}

/**
 * Finds the server binary: an explicit override, one already on PATH, or one we built earlier
 * (cached per version outside the repo, so clean clones reuse it); else builds it with `go install`.
 */
export async function ensureGoBinary(bin: GoBinary, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const override = env[bin.overrideVar];
  if (override) {
    if (!fs.existsSync(override)) throw new Error(`${bin.overrideVar}=${override}: no such file`);
    return override;
  }
  const fromPath = onPath(bin.name);
  if (fromPath) return fromPath;

  const dir = path.join(cacheRoot(), `${bin.name}-${bin.version}`);
  const target = path.join(dir, bin.name);
  if (fs.existsSync(target)) return target;

  if (!onPath('go')) {
    throw new Error(
      `${bin.name} is not on PATH and Go is not installed to build it. Install Go (https://go.dev/dl), ` +
        `put a ${bin.name} binary on PATH, or set ${bin.overrideVar}.`,
    );
  }
  progress(`building ${bin.name} ${bin.version} from Go modules (first run only; this can take minutes)…`);
  // Build into a private folder and rename, so two concurrent starts never see a half-written binary.
  fs.mkdirSync(cacheRoot(), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(cacheRoot(), `.build-${bin.name}-`));
  const started = Date.now();
  const ticker = setInterval(() => progress(`  still building ${bin.name} (${Math.round((Date.now() - started) / 1000)} s)…`), 30_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('go', ['install', `${bin.pkg}@${bin.version}`], {
        env: { ...env, GOBIN: tmp, GOFLAGS: [env.GOFLAGS, '-buildvcs=false'].filter(Boolean).join(' ') },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${bin.pkg}@${bin.version} exited with ${code}`))));
    });
    fs.mkdirSync(dir, { recursive: true });
    fs.renameSync(path.join(tmp, bin.name), target);
  } finally {
    clearInterval(ticker);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  progress(`built ${bin.name} in ${Math.round((Date.now() - started) / 1000)} s → ${target}`);
  return target;
}
