'use strict';
/*
 * `npm start` runs this plain-JavaScript file, which runs main/start.ts compiled. Loading the
 * service through tsx costs about a second of CPU at every start (its hooks see every module,
 * ours and node_modules'), more than half of loading the code. So the first start compiles
 * main/start.ts and everything it imports (not node_modules) with esbuild — the compiler tsx
 * itself uses, with the same output — into dist/start.cjs, and later starts reuse that file while
 * every source file it was made from is unchanged (their hashes are kept beside it). A changed
 * file is compiled again at the next start (about half a second); nothing to run by hand. Should
 * esbuild be missing or dist/ not writable, the start runs through tsx as before.
 */
const { createHash, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const ENTRY = path.join(ROOT, 'main', 'start.ts');
const OUT = path.join(ROOT, 'dist', 'start.cjs');
const MANIFEST = `${OUT}.json`;

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

function fingerprint(file) {
  try {
    return sha256(fs.readFileSync(file));
  } catch {
    return null;
  }
}

function writeAtomically(file, data) {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

function upToDate(key) {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
  } catch {
    return false;
  }
  return (
    manifest.key === key &&
    fingerprint(OUT) === manifest.output &&
    Object.entries(manifest.inputs).every(([file, print]) => fingerprint(file) === print)
  );
}

/**
 * `__dirname` and `__filename` keep meaning the source file's folder and name (worker/main.ts finds
 * the workflows by it), not dist/'s: each file's are written in before it is compiled.
 */
const sourcePaths = {
  name: 'source-paths',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      return {
        contents: source
          .replace(/\b__dirname\b/g, JSON.stringify(path.dirname(args.path)))
          .replace(/\b__filename\b/g, JSON.stringify(args.path)),
        loader: 'ts',
      };
    });
  },
};

async function compile(esbuild, key) {
  const started = Date.now();
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    absWorkingDir: ROOT,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    sourcemap: 'inline',
    sourcesContent: false,
    metafile: true,
    write: false,
    outfile: OUT,
    logLevel: 'silent',
    plugins: [sourcePaths],
  });
  const inputs = Object.keys(result.metafile.inputs).map((p) => path.resolve(ROOT, p));
  const code = result.outputFiles[0].contents;
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  writeAtomically(OUT, code);
  // A file saved while it was being read may not be what was compiled: then no manifest, and the
  // next start compiles again.
  if (inputs.some((f) => (fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) > started)) {
    fs.rmSync(MANIFEST, { force: true });
  } else {
    writeAtomically(
      MANIFEST,
      JSON.stringify({ key, output: sha256(code), inputs: Object.fromEntries(inputs.map((f) => [f, fingerprint(f)])) }),
    );
  }
}

async function compiled() {
  let esbuild;
  try {
    esbuild = require('esbuild');
  } catch {
    return false;
  }
  const key = JSON.stringify({ entry: ENTRY, esbuild: esbuild.version, tsconfig: fingerprint(path.join(ROOT, 'tsconfig.json')) });
  try {
    if (!upToDate(key)) await compile(esbuild, key);
    return true;
  } catch (err) {
    process.stderr.write(`[stack] could not compile ${path.relative(ROOT, ENTRY)} (${err.message}); running it through tsx\n`);
    return false;
  } finally {
    await esbuild.stop(); // its service process, if a compile started one, ends now rather than with us
  }
}

void compiled().then(
  (ok) => {
    if (ok) {
      process.setSourceMapsEnabled(true); // stack traces name the .ts files and their lines
      require(OUT);
    } else {
      require('tsx/cjs/api').register();
      require(ENTRY);
    }
  },
  (err) => {
    process.stderr.write(`[stack] start-up failed: ${err.message}\n`);
    process.exit(1);
  },
);
