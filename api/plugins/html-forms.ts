import type { FastifyInstance } from 'fastify';

/*
 * What a scope of server-rendered pages (the review console, the sign-up page) adds for itself:
 * form posts parsed, and its own security headers on every answer. In that scope only: the API
 * interfaces keep refusing form bodies, and their answers keep their own headers.
 */

/** Parses `application/x-www-form-urlencoded` bodies (at most 16 KiB) into an object of strings. */
export function acceptHtmlForms(scope: FastifyInstance): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}

/** Puts each of `headers` on every answer of the scope, unless its route set that header itself. */
export function withSecurityHeaders(scope: FastifyInstance, headers: Readonly<Record<string, string>>): void {
  scope.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(headers)) if (!reply.hasHeader(name)) reply.header(name, value);
  });
}
