import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../../platform/cache-dir';
import { progress } from '../../platform/logger';

/** A server we build from its Go module, since no prebuilt download is reachable on our machines. */
export interface GoBinary {
  /** The cache folder's name (`<name>-<version>`), and the binary looked for on PATH. */
  name: string;
  /** The main package; its binary is named after the package's last path element. */
  pkg: string;
  version: string;
  /** A Go toolchain to build with (GOTOOLCHAIN), when the module needs a newer Go than the machine's. */
  toolchain?: string;
  /** Further packages of the same module, built by the same `go install` into the same folder. */
  companions?: string[];
}

export const TEMPORAL_CLI: GoBinary = {
  name: 'temporal',
  pkg: 'github.com/temporalio/cli/cmd/temporal',
  // v1.5.1's go.mod has no `replace` directive; later tags do, and `go install pkg@version` refuses those.
  version: 'v1.5.1',
};

export const MINIO_SERVER: GoBinary = {
  name: 'minio',
  pkg: 'github.com/minio/minio',
  // The module proxy refuses the RELEASE.2025-10-15 commit (9e49d5e7a648: "module version is not available");
  // this is the last commit of the archived community edition, the newest the proxy serves.
  version: 'v0.0.0-20260212201848-7aac2a2c5b7c',
};

export const VERSITYGW: GoBinary = {
  name: 'versitygw',
  pkg: 'github.com/versity/versitygw/cmd/versitygw',
  version: 'v1.8.0',
};

/**
 * The real Temporal server (frontend, history, matching and worker services in one binary) and its
 * SQL schema tool, for the cluster lane (infra/local/temporal-cluster.ts). v1.31 and later need
 * Go ≥ 1.26.10; go1.27.3 is the one newer toolchain the module proxy serves (the `go` command
 * downloads it through the proxy when GOTOOLCHAIN names it).
 */
export const TEMPORAL_SERVER: GoBinary = {
  name: 'temporal-server',
  pkg: 'go.temporal.io/server/cmd/server',
  version: 'v1.32.2',
  toolchain: 'go1.27.3',
  companions: ['go.temporal.io/server/cmd/tools/sql'],
};

const cacheRoot = () => cacheDir('bin');
const binaryName = (pkg: string) => path.basename(pkg);

/** Where a built binary of `bin` lives in the cache: the main one, or a companion's by its package. */
export function cachedBinaryPath(bin: GoBinary, pkg = bin.pkg): string {
  return path.join(cacheRoot(), `${bin.name}-${bin.version}`, binaryName(pkg));
}

function onPath(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const p = found.stdout.trim();
  return found.status === 0 && p ? p : undefined;
}

/**
 * Finds the server binary: one already on PATH, or one we built earlier (cached per version outside
 * the repo, so clean clones reuse it); else builds it with `go install`.
 */
export async function ensureGoBinary(bin: GoBinary, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  // A binary on PATH is used only alone: its companions (another version's, perhaps) could not be trusted.
  const fromPath = bin.companions ? undefined : onPath(bin.name);
  if (fromPath) return fromPath;

  const pkgs = [bin.pkg, ...(bin.companions ?? [])];
  const target = cachedBinaryPath(bin);
  if (pkgs.every((pkg) => fs.existsSync(cachedBinaryPath(bin, pkg)))) return target;

  if (!onPath('go')) {
    throw new Error(
      `${bin.name} is not on PATH and Go is not installed to build it. Install Go (https://go.dev/dl), ` +
        `or put a ${bin.name} binary on PATH.`,
    );
  }
  progress(`building ${bin.name} ${bin.version} from Go modules (first run only; this can take minutes)…`);
  await goInstall(bin, pkgs, env);
  return target;
}

/** `go install` of every package into a private folder, then renamed into the cache. */
async function goInstall(bin: GoBinary, pkgs: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const dir = path.dirname(cachedBinaryPath(bin));
  // Build into a private folder and rename, so two concurrent starts never see a half-written binary.
  fs.mkdirSync(cacheRoot(), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(cacheRoot(), `.build-${bin.name}-`));
  const started = Date.now();
  const ticker = setInterval(() => progress(`  still building ${bin.name} (${Math.round((Date.now() - started) / 1000)} s)…`), 30_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('go', ['install', ...pkgs.map((pkg) => `${pkg}@${bin.version}`)], {
        env: {
          ...env,
          GOBIN: tmp,
          GOFLAGS: [env.GOFLAGS, '-buildvcs=false'].filter(Boolean).join(' '),
          ...(bin.toolchain ? { GOTOOLCHAIN: bin.toolchain } : {}),
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${bin.pkg}@${bin.version} exited with ${code}`))));
    });
    fs.mkdirSync(dir, { recursive: true });
    for (const pkg of pkgs) fs.renameSync(path.join(tmp, binaryName(pkg)), cachedBinaryPath(bin, pkg));
  } finally {
    clearInterval(ticker);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  progress(`built ${bin.name} in ${Math.round((Date.now() - started) / 1000)} s → ${dir}`);
}
