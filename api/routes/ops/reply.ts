import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Failure } from '../../../domain/failures';
import { page, sendHtmlPage, type SafeHtml } from './html';
import { errorPage, notFoundPage, refusalPage, type MessagePage } from './message-pages';

/*
 * How the console answers: every answer is an HTML page, refusals and failures included.
 */

export const sendHtml = (reply: FastifyReply, status: number, title: string, body: SafeHtml, operator?: string) =>
  sendHtmlPage(reply, status, page(title, body, operator));

export const sendPage = (reply: FastifyReply, status: number, p: MessagePage) => sendHtml(reply, status, p.title, p.body);

/** A refusal shown as its own page, with its status. */
export class OpsPageError extends Error {
  constructor(
    readonly statusCode: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** A service's `not_found` refusal as the console's 404 page; `otherwise` maps the rest (default: rethrown). */
export function asPageError(err: unknown, otherwise?: (f: Failure) => OpsPageError): unknown {
  if (!(err instanceof Failure)) return err;
  if (err.code === 'not_found') return new OpsPageError(404, 'Not found', err.message);
  return otherwise ? otherwise(err) : err;
}

/** Any error as a page: an OpsPageError as itself, a client's mistake with its message, anything else as a 500 (logged). */
function errorAsPage(err: Error & { statusCode?: number; validation?: unknown }, request: FastifyRequest, reply: FastifyReply) {
  if (err instanceof OpsPageError) return sendPage(reply, err.statusCode, refusalPage(err.title, err.message));
  const status = err.validation || (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) ? (err.statusCode ?? 400) : 500;
  if (status >= 500) request.log.error({ err }, 'review console: request failed');
  const text = status >= 500 ? 'Something went wrong; the request id identifies it in the logs.' : err.message;
  return sendPage(reply, status, errorPage(status, text, request.id));
}

/** In the console's scope, errors and unknown addresses answer as pages, not in the API's error envelope. */
export function answerFailuresAsPages(scope: FastifyInstance): void {
  scope.setErrorHandler(errorAsPage);
  scope.setNotFoundHandler((request, reply) => sendPage(reply, 404, notFoundPage(request.url)));
}
