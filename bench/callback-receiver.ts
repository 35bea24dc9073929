import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A callback event as the bench's receiver reads it (docs/callbacks.md has the whole shape). */
export interface ReceivedEvent {
  id: string;
  type: string;
  data?: { offer?: { id?: string }; new_status?: string };
}

/**
 * A local receiver of JSON callbacks on loopback: answers every delivery 200 and hands each event,
 * with the path it was delivered to, to `onEvent`. The caller decides what counts.
 */
export async function startCallbackReceiver(onEvent: (event: ReceivedEvent, path: string) => void) {
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end();
      onEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedEvent, req.url ?? '');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const { port } = receiver.address() as AddressInfo;
  return { port, close: () => receiver.close() };
}
