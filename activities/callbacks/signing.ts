import { Webhook } from 'standardwebhooks';
import type { CallbackEndpointRow } from '../../store/database';
import { openSecret, type SecretKeys } from '../../platform/secret-box';

/**
 * The three Standard Webhooks headers for one attempt. `webhook-id` is the event id (the same on
 * every attempt and replay, for receivers' dedupe); the timestamp is the attempt's, so receivers
 * can refuse replays older than their tolerance. Several secrets (during a rotation) give several
 * space-separated signatures; a receiver with either secret verifies.
 */
export function signatureHeaders(secrets: string[], eventId: string, at: Date, body: string): Record<string, string> {
  const signatures = secrets.map((s) => new Webhook(s).sign(eventId, at, body));
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

/**
 * The secrets that sign right now, in clear: the current one, and the previous one inside its
 * overlap window. An encrypted one that no key of `secretKeys` opens throws (SecretKeyError): a
 * callback is never sent unsigned or signed with a wrong secret.
 */
export function signingSecrets(
  e: Pick<CallbackEndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  secretKeys: SecretKeys,
  now = new Date(),
): string[] {
  const prev = e.previous_secret && e.previous_secret_expires_at && new Date(e.previous_secret_expires_at) > now ? [e.previous_secret] : [];
  return [e.secret, ...prev].map((s) => openSecret(s, secretKeys));
}
