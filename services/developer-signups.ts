import { Failure, notFound } from '../domain/failures';
import type { SignupCreate } from '../schemas/developer-signup';
import type { DeveloperSignupRow } from '../store/database';
import { findSignupByEmail, insertSignupWithClients } from '../store/developer-signups';
import { newId } from '../store/ids';
import { newApiClient } from './api-clients';
import type { ServiceDeps } from './deps';

/*
 * Developer sign-up (spec 5.3): anyone may get a sandbox key pair, one submission and one
 * distribution key, by giving an email address. The address is recorded, not verified (no mail is
 * sent); one sign-up per address. Sandbox only: production keys are issued by the service team.
 * The per-address rate limit lives at the edge (api/routes/developer).
 */

type Deps = Pick<ServiceDeps, 'db' | 'config'>;

/** Refuses (`not_found`) when this deployment does not offer sign-up: production, or DEVELOPER_SIGNUP=off. */
export function requireSignupOpen(deps: Pick<ServiceDeps, 'config'>): void {
  if (!deps.config.DEVELOPER_SIGNUP)
    throw new Failure(
      'not_found',
      deps.config.SERVICE_ENVIRONMENT === 'production'
        ? 'developer sign-up exists only in the sandbox; production keys are issued by the service team on application'
        : 'developer sign-up is turned off in this deployment (DEVELOPER_SIGNUP=off); ask the service team for a key',
    );
}

export interface SignedUp {
  signup: DeveloperSignupRow;
  /** The keys in clear: shown once, never stored. */
  keys: { submission: string; distribution: string };
}

/**
 * Creates the developer's two sandbox clients and records the sign-up, in one transaction;
 * `duplicate` (field `email`) when the address signed up before.
 */
export async function signUpDeveloper(deps: Deps, input: SignupCreate, clientAddress: string): Promise<SignedUp> {
  requireSignupOpen(deps);
  const name = input.name ? `${input.name} (${input.email})` : input.email;
  const submission = newApiClient({ iface: 'submission', environment: 'sandbox', name });
  const distribution = newApiClient({ iface: 'distribution', environment: 'sandbox', name });
  const signup = await insertSignupWithClients(deps.db, {
    id: newId('dev'),
    email: input.email,
    name: input.name ?? null,
    clientAddress,
    submission: submission.client,
    distribution: distribution.client,
  });
  return { signup, keys: { submission: submission.key, distribution: distribution.key } };
}

/** The sign-up of this email address (trimmed, any case), for operators: its two clients, when, from where. */
export async function signupOf(deps: Pick<ServiceDeps, 'db'>, email: string): Promise<DeveloperSignupRow> {
  return (
    (await findSignupByEmail(deps.db, email.trim().toLowerCase())) ?? Promise.reject(notFound('developer sign-up of this email address'))
  );
}
