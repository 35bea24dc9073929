/*
 * Rolling an API key (docs/decisions/0073-api-key-rolling.md): a new key for the same client, the
 * old one working on until an expiry chosen at the roll, as Stripe's dashboard does.
 */

/** The longest an old key may keep working after its roll: 7 days. */
export const ROLL_MAX_SECONDS = 7 * 24 * 3600;

/** How long an old key keeps working when the roll names no expiry: 24 hours. */
export const ROLL_DEFAULT_SECONDS = 24 * 3600;

/** A key's state as lists show it: the client's current key, one rolled away still working, or one past its expiry. */
export type ApiKeyState = 'current' | 'rolled' | 'expired';

/** The state of a key rolled away at `now`. */
export function rolledKeyState(expiresAt: Date, now: Date = new Date()): ApiKeyState {
  return expiresAt > now ? 'rolled' : 'expired';
}
