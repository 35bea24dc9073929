import type { FastifyRequest } from 'fastify';
import { INTERFACE_PREFIX } from '../domain/environment';

/**
 * A version-less interface address as the current version's: `/submission/offers` is
 * `/submission/beta/offers`, `/distribution/offers?q=…` is `/distribution/beta/offers?q=…`.
 * Applied to the URL before routing (Fastify's rewriteUrl), so the alias is the same route, with
 * the same key check, rate-limit bucket, formats and errors, and one route table that the OpenAPI
 * documents are built from (they list the versioned paths only). Addresses already versioned,
 * and everything outside the two interfaces, are returned unchanged.
 */
export function withCurrentVersion(url: string): string {
  for (const prefix of Object.values(INTERFACE_PREFIX)) {
    const cut = prefix.lastIndexOf('/');
    const base = prefix.slice(0, cut); // '/submission'
    const version = prefix.slice(cut); // '/beta'
    if (url !== base && !url.startsWith(`${base}/`) && !url.startsWith(`${base}?`)) continue;
    const rest = url.slice(base.length);
    if (rest === version || rest.startsWith(`${version}/`) || rest.startsWith(`${version}?`)) return url;
    return `${prefix}${rest}`;
  }
  return url;
}

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
