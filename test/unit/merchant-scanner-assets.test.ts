import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ZXING_WASM_SHA256, ZXING_WASM_VERSION } from 'barcode-detector/ponyfill';
import { detectorDir, wasmFile } from '../../api/routes/merchant/assets';
import { SCAN_SCRIPT } from '../../api/routes/merchant/scan-script';

/*
 * The counter's scanner files come from node_modules (api/routes/merchant/assets.ts): the
 * WebAssembly reader served must be the very build barcode-detector was made against (a newer
 * zxing-wasm hoisted beside it would fail at run time in the browser), and the script must load
 * nothing from another origin.
 */
describe('the merchant counter scanner assets', () => {
  it('serves the zxing_reader.wasm whose version and SHA-256 barcode-detector expects', () => {
    const wasm = fs.readFileSync(wasmFile());
    expect(crypto.createHash('sha256').update(wasm).digest('hex')).toBe(ZXING_WASM_SHA256);
    const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(wasmFile()), '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(pkg.version).toBe(ZXING_WASM_VERSION);
  });

  it("serves barcode-detector's ES module and the chunk it imports", () => {
    const ponyfill = fs.readFileSync(path.join(detectorDir(), 'ponyfill.js'), 'utf8');
    expect(ponyfill).toContain('./zxing-exported.js');
    expect(fs.existsSync(path.join(detectorDir(), 'zxing-exported.js'))).toBe(true);
  });

  it('the script names only this origin', () => {
    expect(SCAN_SCRIPT).not.toMatch(/https?:\/\//);
    expect(SCAN_SCRIPT).toContain("import('/merchant/assets/barcode-detector/ponyfill.js')");
  });
});
