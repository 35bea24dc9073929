import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MERCHANT_PATH } from '../../../services/redemption-staff';
import type { RouteApp } from '../operation';
import { SCAN_SCRIPT } from './scan-script';

/*
 * The counter's static files, all from this origin: its script, and the barcode-detector
 * package's ES module build and ZXing's WebAssembly reader, read from node_modules as npm
 * installed them (the package's README: serve the .wasm yourself and point `locateFile` at it).
 * Read once, at the first request for them; cached by the browser for a day.
 */

/** The barcode-detector package's `dist/es` folder (its CommonJS entry is dist/cjs/index.js). */
export const detectorDir = () => join(dirname(require.resolve('barcode-detector')), '..', 'es');
/** zxing-wasm's reader, the version barcode-detector's build was made against (its ZXING_WASM_VERSION). */
export const wasmFile = () => require.resolve('zxing-wasm/reader/zxing_reader.wasm');

interface Asset {
  type: string;
  read: () => Buffer | string;
}

const ASSETS: Record<string, Asset> = {
  'scan.js': { type: 'text/javascript; charset=utf-8', read: () => SCAN_SCRIPT },
  'barcode-detector/ponyfill.js': { type: 'text/javascript; charset=utf-8', read: () => readFileSync(join(detectorDir(), 'ponyfill.js')) },
  'barcode-detector/zxing-exported.js': {
    type: 'text/javascript; charset=utf-8',
    read: () => readFileSync(join(detectorDir(), 'zxing-exported.js')),
  },
  'zxing_reader.wasm': { type: 'application/wasm', read: () => readFileSync(wasmFile()) },
};

export function assetRoutes(app: RouteApp): void {
  const cache = new Map<string, Buffer | string>();
  for (const [name, asset] of Object.entries(ASSETS)) {
    app.get(`${MERCHANT_PATH}/assets/${name}`, { schema: { hide: true } }, (_request, reply) => {
      if (!cache.has(name)) cache.set(name, asset.read());
      return reply.type(asset.type).header('cache-control', 'public, max-age=86400').send(cache.get(name));
    });
  }
}
