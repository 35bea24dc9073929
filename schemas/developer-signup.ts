import { z } from 'zod';
import type { ApiInterface } from '../domain/environment';
import type { DeveloperSignupRow } from '../store/database';
import { Timestamp } from './common';
import { okEnvelope, wrappedBody } from './envelope';

/*
 * A developer's sign-up for a sandbox key pair (spec 5.3): what they send (an email address and an
 * optional name), and what they get back once: one submission and one distribution key.
 */

/** Trimmed and lower-cased before it is checked, so `Ada@Example.com ` and `ada@example.com` are one address. */
const Email = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  z.email({ error: 'must be an email address such as ada@example.com' }).max(254),
);

export const SignupCreate = z.object({
  email: Email,
  name: z.string().trim().min(1).max(200).optional(),
});
export type SignupCreate = z.output<typeof SignupCreate>;

export const SignupCreateBody = wrappedBody('signup', SignupCreate).meta({
  examples: [{ signup: { email: 'ada@example.com', name: 'Deals Blog' } }],
});

/** One key of the pair: shown in this answer only (stored hashed), with the interface it opens. */
const SignupKey = z.object({
  client_id: z.string(),
  key: z.string(),
  base_url: z.string(),
});

export const Signup = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  environment: z.literal('sandbox'),
  created_at: Timestamp,
  keys: z.object({ submission: SignupKey, distribution: SignupKey }),
});
export type SignupView = z.output<typeof Signup>;

export const SignupResponse = okEnvelope('signup', Signup);

/** The sign-up as its answer shows it, with the two keys in clear (the only time they are) and where each one works. */
export function toSignup(row: DeveloperSignupRow, keys: Record<ApiInterface, string>, baseUrls: Record<ApiInterface, string>): SignupView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    environment: 'sandbox',
    created_at: row.created_at.toISOString(),
    keys: {
      submission: { client_id: row.submission_client_id, key: keys.submission, base_url: baseUrls.submission },
      distribution: { client_id: row.distribution_client_id, key: keys.distribution, base_url: baseUrls.distribution },
    },
  };
}
