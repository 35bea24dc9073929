import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/*
 * Debian's Chromium driven by playwright-core (never a downloaded browser), as the browser tests
 * launch it. CI installs the `chromium` package (.ci/run); without it a browser test fails and says
 * so, it is never skipped.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
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

/** Chromium, headless, with `extraArgs`; throws with the fix when the browser is not installed. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH. This browser test is required, not optional.`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
