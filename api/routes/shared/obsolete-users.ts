import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../../errors';
import { INTERFACE_PREFIX } from '../../../domain/environment';
import { DEVELOPER_PREFIX } from '../developer';
import { SIGNUP_PAGE_PATH } from '../developer/signup-page';

/**
 * The spec's obsolete User endpoints (section 4.7), relative to an interface's base address. They
 * are answered rather than left to the router's 404 so that a client written against the old API
 * learns the resource is gone for good and what took its place (docs/decisions/0035-obsolete-user-resource.md). Not in the OpenAPI documents: there is nothing a client should call here.
 */
export const OBSOLETE_USER_ROUTES: ReadonlyArray<{ method: 'POST' | 'PUT' | 'DELETE'; url: string }> = [
  { method: 'POST', url: '/applications/:id/users' },
  { method: 'PUT', url: '/applications/:id/users/:user_id' },
  { method: 'DELETE', url: '/applications/:id/users/:user_id' },
];

/** What replaced each part of the User resource, carried in the error as facts a client can follow. */
export const USER_REPLACED_BY = [
  {
    what: 'api_keys',
    path: `${DEVELOPER_PREFIX}/signups`,
    note: `sandbox keys: sign up with POST or the form at ${SIGNUP_PAGE_PATH}; production keys are issued by the operators`,
  },
  { what: 'publishers', path: `${INTERFACE_PREFIX.distribution}/accounts`, note: "a distribution platform's publishers are accounts" },
];

const GONE_MESSAGE =
  'the User resource and /applications/:id/users are retired. API keys: sign up for a sandbox key pair at ' +
  `POST ${DEVELOPER_PREFIX}/signups (production keys come from the operators). Publishers of a distribution ` +
  `platform: the Account resource, ${INTERFACE_PREFIX.distribution}/accounts`;

/** 410 `gone` on the obsolete User endpoints of an interface, after its rate limit and key check. */
export const obsoleteUserRoutes: FastifyPluginAsync = async (app) => {
  for (const { method, url } of OBSOLETE_USER_ROUTES) {
    app.route({
      method,
      url,
      schema: { hide: true },
      handler: async () => {
        throw new ApiError(410, 'gone', GONE_MESSAGE, { replaced_by: USER_REPLACED_BY });
      },
    });
  }
};
