import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../errors';

/*
 * Requests Node refuses before Fastify ever sees them — a malformed request line or header, headers
 * past Node's size limit, a request not received within REQUEST_TIMEOUT_SECONDS — surface as the
 * server's 'clientError' event with only the socket. They get the documented error envelope
 * (docs/errors.md) written on the socket, like every other refusal, with a request id of their own
 * that the log line carries too.
 */

/** The status and code of each client error Node reports; anything else it could not parse is a 400. */
function refusal(err: NodeJS.ErrnoException): [number, ErrorCode, string] {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return [408, 'request_timeout', 'the request was not received in time (REQUEST_TIMEOUT_SECONDS); send it again, whole'];
  if (err.code === 'HPE_HEADER_OVERFLOW') return [431, 'headers_too_large', 'the request headers are too large'];
  return [400, 'malformed_request', 'the request is not valid HTTP/1.1'];
}

/** The answer written on the socket: a complete HTTP/1.1 response that closes the connection. */
export function clientErrorResponse(err: NodeJS.ErrnoException, requestId: string): { status: number; raw: string } {
  const [status, code, message] = refusal(err);
  const body = JSON.stringify({ status: 'ERROR', errors: [{ code, message }], request_id: requestId });
  const raw =
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'X-Content-Type-Options: nosniff\r\n' +
    'Cache-Control: no-store\r\n' +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body;
  return { status, raw };
}

/** Fastify's `clientErrorHandler`: `this` is the Fastify instance (for its logger). */
export function makeClientErrorHandler(genReqId: () => string) {
  return function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
    // A reset connection has nobody to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = genReqId();
    const { status, raw } = clientErrorResponse(err, requestId);
    this.log.info({ reqId: requestId, status, code: err.code }, 'request refused before routing');
    // Only if no answer has begun on this connection (a route may already be answering a request
    // whose body is late); then closed, as Node's own handler does.
    const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !pending?.headersSent) socket.write(raw);
    socket.destroy(err);
  };
}
