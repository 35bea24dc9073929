import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { cacheDir } from '../../platform/cache-dir';

/*
 * The browser tests' Chromium is the headless Chromium that the `@sparticuz/chromium` devDependency
 * ships inside its npm package (linux-x64, brotli-compressed), driven by playwright-core: `npm
 * install` brings it and nothing is downloaded, at install or at run time, so `npm test` needs no
 * system browser (docs/decisions/0036-browser-tests-chromium.md). It is unpacked once per
 * package version into ~/.cache/offer-marketplace. CHROMIUM_PATH names another Chromium instead,
 * e.g. on a platform the package has no build for.
 */
const PACKAGE = '@sparticuz/chromium';

/** Flags for this closed network: no sandbox (tests run as root) and no calls home. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The package's only export is its ESM entry (build/index.js); its folder is one level up. */
const entry = () => require.resolve(PACKAGE);

/**
 * The unpacked browser, unpacking it first if needed. The package unpacks into `os.tmpdir()`, so a
 * child process does it with TMPDIR set to a private folder, which is then renamed into place:
 * two test runs at once never see a half-written binary. (A child also keeps the package's ESM
 * entry out of jest's CommonJS module system.)
 */
export function registryChromium(): string {
  const dir = path.resolve(path.dirname(entry()), '..');
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  const target = path.join(cacheDir('chromium'), version);
  const binary = path.join(target, 'chromium');
  if (fs.existsSync(binary)) return binary;

  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(path.dirname(target), `.unpack-${version}-`));
  try {
    const unpacked = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { default: c } = await import(${JSON.stringify(pathToFileURL(entry()).href)}); process.stdout.write(await c.executablePath());`,
      ],
      { env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    if (unpacked !== path.join(tmp, 'chromium')) throw new Error(`${PACKAGE} unpacked to ${unpacked}, expected ${tmp}/chromium`);
    try {
      fs.renameSync(tmp, target);
    } catch (err) {
      // Another run unpacked the same version first: use its copy.
      if (!fs.existsSync(binary)) throw err;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return binary;
}

/** The Chromium the browser tests launch: CHROMIUM_PATH if set, else the registry package's. */
export function chromiumPath(): string {
  const override = process.env.CHROMIUM_PATH;
  if (override) {
    if (!fs.existsSync(override)) throw new Error(`CHROMIUM_PATH=${override}: no such file`);
    return override;
  }
  return registryChromium();
}

/** Chromium, headless, with `extraArgs`. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** axe-core's serious and critical violations on the page (run through evaluate: the pages' CSP allows no injected script tag). */
export async function axeProblems(page: Page): Promise<string[]> {
  const source = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const violations = (await page.evaluate(`${source}; axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`)) as {
    id: string;
    impact: string;
    nodes: { target: string[] }[];
  }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
