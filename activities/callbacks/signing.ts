import { Webhook } from 'standardwebhooks';

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
