import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './eventually';

export interface ReceivedCallback {
  /** The request's path, so one receiver can stand for many endpoints (a path each). */
  url: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  /** When the request arrived (ms since the epoch, this process's clock): spacing is measured here. */
  at: number;
}

/**
 * A callback receiver on 127.0.0.1 (the one allowed fake): answers each request with the next
 * status of `statuses` (then `fallback`), records what it got, and can go down and come back on
 * the same port.
 */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  private server?: http.Server;
  port = 0;

  constructor(
    private statuses: number[] = [],
    private fallback = 200,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/callbacks`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const at = Date.now();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        this.received.push({ url: req.url ?? '', headers: req.headers as Record<string, string>, body, json, at });
        res.statusCode = this.statuses.shift() ?? this.fallback;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Resolves once `n` requests arrived (or fails after `timeoutMs`). */
  waitFor(n: number, timeoutMs = 30_000): Promise<ReceivedCallback[]> {
    return eventually(
      () => `${n} callbacks (the receiver got ${this.received.length})`,
      () => this.received.length >= n && this.received,
      { timeoutMs, intervalMs: 100 },
    );
  }
}
