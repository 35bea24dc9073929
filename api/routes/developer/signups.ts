import type { FastifyRequest } from 'fastify';
import { okReply } from '../../../schemas/envelope';
import { SignupCreateBody, SignupResponse, toSignup } from '../../../schemas/developer-signup';
import { signUpDeveloper } from '../../../services/developer-signups';
import { interfaceBaseUrl } from '../../urls';
import { INTERFACE_PREFIX, type ApiInterface } from '../../../domain/environment';
import { operations, type RoutePlugin } from '../operation';
import type { SignupLimit } from './signup-limit';

const op = operations('Developers');

/** Where each key of the pair works, as absolute addresses. */
export function signupBaseUrls(request: FastifyRequest): Record<ApiInterface, string> {
  return {
    submission: interfaceBaseUrl(request, INTERFACE_PREFIX.submission),
    distribution: interfaceBaseUrl(request, INTERFACE_PREFIX.distribution),
  };
}

/** `POST /developer/beta/signups`: an email address (and a name) in, a sandbox key pair out, once. */
export const signupApiRoutes: RoutePlugin<{ limit: SignupLimit }> = async (app, { deps, limit }) => {
  app.post(
    '/signups',
    {
      onRequest: limit,
      ...op('createSignup', 'Sign up for a sandbox key pair', {
        description:
          'Sandbox only, no API key. Answers one submission and one distribution key, shown this once. ' +
          'One sign-up per email address (409 `duplicate` after); the address is recorded, not verified. ' +
          'Limited to 5 per client address per hour (429 with Retry-After).',
        security: [],
        body: SignupCreateBody,
        response: { 200: SignupResponse },
      }),
    },
    async (request, reply) => {
      const { signup, keys } = await signUpDeveloper(deps, request.body.signup, request.ip);
      request.log.info({ signup_id: signup.id }, 'developer signed up');
      // The keys are in this answer only: no cache may keep it.
      reply.header('cache-control', 'no-store');
      return okReply('signup', toSignup(signup, keys, signupBaseUrls(request)));
    },
  );
};
