import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { ServiceEnvironment } from '../../domain/environment';
import { guardedLookup, isForbiddenAddress, parseCallbackUrl, UnsafeCallbackUrlError } from '../../platform/url-safety';

export interface PostResult {
  /** The receiver's status code, when it answered at all. */
  statusCode: number | null;
  /** Why the attempt failed without an answer (timeout, refused, unsafe address…). */
  error: string | null;
  durationMs: number;
}

/** Bytes of the receiver's answer read (and then dropped): enough to finish the exchange, no more. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One POST, never following redirects, with a hard deadline on the whole exchange (connect, send,
 * answer): a slow receiver cannot hold the attempt past `timeoutMs`. In production the target is
 * re-checked here (form and resolved address), whatever `callbacks set` saw earlier.
 */
export async function postOnce(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; environment: ServiceEnvironment },
): Promise<PostResult> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null): PostResult => ({ statusCode, error, durationMs: Date.now() - started });
  let url: URL;
  try {
    url = parseCallbackUrl(rawUrl, opts.environment);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (opts.environment === 'production' && net.isIP(host) && isForbiddenAddress(host)) {
      throw new UnsafeCallbackUrlError(`${host} is a loopback, private, link-local or reserved address, which production does not call`);
    }
  } catch (err) {
    return done(null, (err as Error).message);
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(done(statusCode, error));
    };
    const req = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'offer-marketplace-callbacks/1' },
        agent: false, // a fresh connection per attempt: no pooled socket outlives the deadline
        ...(opts.environment === 'production' ? { lookup: guardedLookup } : {}),
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) finish(res.statusCode ?? null, null);
        });
        res.on('end', () => finish(res.statusCode ?? null, null));
        res.on('error', () => finish(res.statusCode ?? null, null));
      },
    );
    const timer = setTimeout(() => finish(null, `timed out after ${opts.timeoutMs} ms`), opts.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish(null, err instanceof UnsafeCallbackUrlError ? err.message : `${err.code ?? 'error'}: ${err.message}`),
    );
    req.end(body);
  });
}
