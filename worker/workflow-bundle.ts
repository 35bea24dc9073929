import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { cacheDir } from '../platform/cache-dir';

/*
 * A worker given `workflowsPath` bundles the workflows with webpack at every start, most of a warm
 * `npm start`'s CPU (bench/README.md). The bundle only changes when a file webpack read changes, so we
 * keep it in the user's cache with the list of those files and their hashes (webpack's own
 * dependency list, as its watch mode uses), and reuse it while every one of them is unchanged.
 */

interface Manifest {
  /** What built it: the workflows' entry and the bundler's versions. */
  key: string;
  /** SHA-256 of the bundle file, so a bundle and a manifest of two different builds never pair. */
  bundle: string;
  /** Every file webpack read: its SHA-256, 'dir' for a folder, null when it was not on disk. */
  files: Record<string, string | null>;
  /** Paths webpack looked for and did not find: a file appearing there could change what resolves. */
  missing: string[];
}

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => process.stderr.write(`${m}\n`) };

function sha256(data: Buffer | string): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** A file's fingerprint: its content hash, 'dir' for a folder, null when absent. */
function fingerprint(file: string): string | null {
  try {
    return sha256(fs.readFileSync(file));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EISDIR' ? 'dir' : null;
  }
}

function versionOf(pkg: string): string {
  const file = require.resolve(`${pkg}/package.json`, { paths: [require.resolve('@temporalio/worker')] });
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

function readManifest(file: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

function upToDate(manifest: Manifest | undefined, key: string, bundleFile: string): boolean {
  if (!manifest || manifest.key !== key || fingerprint(bundleFile) !== manifest.bundle) return false;
  return (
    Object.entries(manifest.files).every(([file, print]) => fingerprint(file) === print) &&
    manifest.missing.every((file) => !fs.existsSync(file))
  );
}

/** Writes beside the target and renames, so a concurrent start never reads half a file. */
function writeAtomically(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

/**
 * The path of an up-to-date bundle of the workflows under `workflowsPath` (the same bundle a worker
 * builds from `workflowsPath` itself: default interceptors, no converters), built only when a file
 * it was made from has changed. `cached` says whether it was reused.
 */
export async function workflowBundle(
  workflowsPath: string,
  dir = cacheDir('workflow-bundles'),
): Promise<{ path: string; cached: boolean }> {
  const key = JSON.stringify({ workflowsPath, sdk: versionOf('@temporalio/worker'), webpack: versionOf('webpack') });
  const name = sha256(key).slice(0, 16);
  const bundleFile = path.join(dir, `${name}.js`);
  const manifestFile = path.join(dir, `${name}.json`);
  if (upToDate(readManifest(manifestFile), key, bundleFile)) return { path: bundleFile, cached: true };

  const started = Date.now();
  let deps: { files: string[]; missing: string[] } = { files: [], missing: [] };
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: quiet,
    webpackConfigHook: (config) => ({
      ...config,
      plugins: [
        ...(config.plugins ?? []),
        {
          apply(compiler) {
            compiler.hooks.done.tap('offer-marketplace-dependencies', (stats) => {
              deps = { files: [...stats.compilation.fileDependencies], missing: [...stats.compilation.missingDependencies] };
            });
          },
        },
      ],
    }),
  });
  fs.mkdirSync(dir, { recursive: true });
  writeAtomically(bundleFile, code);
  // A file saved while webpack was reading it may not be what the bundle holds: then no manifest,
  // and the next start bundles again.
  const changedSince = deps.files.some((f) => {
    const stat = fs.statSync(f, { throwIfNoEntry: false });
    return stat?.isFile() && stat.mtimeMs > started;
  });
  if (deps.files.length > 0 && !changedSince) {
    const manifest: Manifest = {
      key,
      bundle: sha256(code),
      files: Object.fromEntries(deps.files.map((f) => [f, fingerprint(f)])),
      missing: deps.missing,
    };
    writeAtomically(manifestFile, JSON.stringify(manifest));
  } else {
    fs.rmSync(manifestFile, { force: true });
  }
  return { path: bundleFile, cached: false };
}
