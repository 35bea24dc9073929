import fs from 'node:fs';
import { PNG } from 'pngjs';

/*
 * A camera for Chromium's fake video capture (`--use-file-for-fake-video-capture=<file>.y4m`): an
 * image (a PNG, e.g. a screenshot of the customer page's QR code) centred on a white frame, as
 * raw YUV4MPEG2 4:2:0 frames. The image is grey-scaled (chroma flat) and scaled by a whole factor
 * with nearest-neighbour sampling, so its modules stay sharp as a printed code held up to a lens.
 */
export function writeFakeCamera(png: Buffer, file: string, opts: { width?: number; height?: number; frames?: number } = {}): void {
  const width = opts.width ?? 640;
  const height = opts.height ?? 480;
  const img = PNG.sync.read(png);
  const scale = Math.max(1, Math.floor(Math.min((width * 0.8) / img.width, (height * 0.8) / img.height)));
  const left = Math.floor((width - img.width * scale) / 2);
  const top = Math.floor((height - img.height * scale) / 2);
  const luma = Buffer.alloc(width * height, 255);
  for (let y = 0; y < img.height * scale; y++)
    for (let x = 0; x < img.width * scale; x++) {
      const i = (Math.floor(y / scale) * img.width + Math.floor(x / scale)) * 4;
      const alpha = img.data[i + 3] / 255;
      const grey = 0.299 * img.data[i] + 0.587 * img.data[i + 1] + 0.114 * img.data[i + 2];
      luma[(top + y) * width + left + x] = Math.round(grey * alpha + 255 * (1 - alpha));
    }
  const chroma = Buffer.alloc((width / 2) * (height / 2), 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma, chroma]);
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`);
  fs.writeFileSync(file, Buffer.concat([header, ...Array.from({ length: opts.frames ?? 10 }, () => frame)]));
}
