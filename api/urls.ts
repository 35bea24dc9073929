import type { FastifyRequest } from 'fastify';
import type { ApiInterface } from '../domain/environment';

/** Where each interface is mounted. */
export const INTERFACE_PREFIX: Readonly<Record<ApiInterface, string>> = {
  submission: '/submission/beta',
  distribution: '/distribution/beta',
};

declare module 'fastify' {
  interface FastifyInstance {
    /** PUBLIC_BASE_URL when configured (no trailing slash); absolute URLs are built from it. */
    publicBaseUrl: string | undefined;
  }
}

/**
 * The absolute address of the interface the request came in on, e.g. `https://host/submission/beta`:
 * PUBLIC_BASE_URL + prefix when one is configured, else the request's own scheme and Host (which
 * honour X-Forwarded-Proto/Host only from a trusted proxy, TRUST_PROXY). The one builder of
 * absolute URLs: download_url and any other link a client follows.
 */
export function interfaceBaseUrl(request: FastifyRequest, prefix: string): string {
  return `${request.server.publicBaseUrl ?? `${request.protocol}://${request.host}`}${prefix}`;
}

/** The site's own absolute address (no interface prefix), e.g. for customer voucher pages' print_url. */
export function siteBaseUrl(request: FastifyRequest): string {
  return interfaceBaseUrl(request, '');
}
