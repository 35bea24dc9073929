/*
 * The counter's one script, served as /merchant/assets/scan.js (an external file: the page's CSP
 * allows no inline script). It is plain browser JavaScript, sent as written: no build step. It
 * shows the "Scan with camera" button, reads the customer's QR code or Code 128 barcode from the
 * camera with the browser's BarcodeDetector where it has one for these formats, else with the
 * barcode-detector package (ZXing compiled to WebAssembly) served from this origin (assets.ts),
 * never a CDN, and submits the code to the lookup form. Without a camera (or script) the code is typed.
 */
export const SCAN_SCRIPT = `// The counter's camera scanner (api/routes/merchant/scan-script.ts).
const FORMATS = ['qr_code', 'code_128'];
const form = document.getElementById('lookup');
const input = document.getElementById('code');
const button = document.getElementById('scan');
const video = document.getElementById('camera');
const status = document.getElementById('scan-status');

// The outcome of what was just done is read first: it takes the focus.
document.querySelector('[data-testid=outcome]')?.focus();

async function nativeDetector() {
  if (!('BarcodeDetector' in globalThis)) return null;
  try {
    const supported = await globalThis.BarcodeDetector.getSupportedFormats();
    return FORMATS.every((f) => supported.includes(f)) ? new globalThis.BarcodeDetector({ formats: FORMATS }) : null;
  } catch {
    return null;
  }
}

async function libraryDetector() {
  const lib = await import('/merchant/assets/barcode-detector/ponyfill.js');
  const wasm = new URL('/merchant/assets/zxing_reader.wasm', location.href).href;
  lib.prepareZXingModule({ overrides: { locateFile: (path, prefix) => (path.endsWith('.wasm') ? wasm : prefix + path) } });
  return new lib.BarcodeDetector({ formats: FORMATS });
}

async function scan() {
  button.disabled = true;
  status.textContent = 'Starting the camera…';
  let stream;
  try {
    const detector = (await nativeDetector()) ?? (await libraryDetector());
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
    video.srcObject = stream;
    video.hidden = false;
    await video.play();
    status.textContent = "Hold the voucher's QR code or barcode in front of the camera.";
    for (;;) {
      if (video.readyState >= 2) {
        const found = await detector.detect(video).catch(() => []);
        const code = found.map((b) => b.rawValue.trim()).find(Boolean);
        if (code) {
          input.value = code;
          status.textContent = 'Found ' + code + '. Looking it up…';
          form.requestSubmit();
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  } catch (err) {
    status.textContent = 'The camera did not start (' + (err && err.message ? err.message : err) + '). Type the code instead.';
    button.disabled = false;
  } finally {
    if (stream && input.value) stream.getTracks().forEach((t) => t.stop());
  }
}

if (form && button && navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
  button.hidden = false;
  button.addEventListener('click', () => void scan());
}
`;
