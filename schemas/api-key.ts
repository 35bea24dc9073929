import { z } from 'zod';
import { ROLL_DEFAULT_SECONDS, ROLL_MAX_SECONDS } from '../domain/api-key-rolling';
import { Timestamp } from './common';
import { okEnvelope } from './envelope';

/*
 * A client's own API keys (docs/decisions/0073-api-key-rolling.md): listed (never the key, its
 * prefix) and rolled. The new key is in the roll's answer only, shown once.
 */

export const ApiKey = z.object({
  key_prefix: z.string().describe('The first characters of the key, to tell keys apart'),
  state: z
    .enum(['current', 'rolled', 'expired'])
    .describe('current: the key to use; rolled: rolled away, works until expires_at; expired: refused'),
  created_at: Timestamp,
  expires_at: Timestamp.nullable().describe('When a rolled-away key stops working; null for the current key'),
  last_used_at: Timestamp.nullable().describe('Last request with this key, to the minute; null: none yet'),
});

export const ApiKeyList = z.object({ status: z.literal('OK'), api_keys: z.array(ApiKey) });

/** Optional, as its one field: `POST …/api_keys/roll` with no body keeps the old key 24 hours. */
export const ApiKeyRollBody = z
  .object({
    api_key: z
      .object({
        expires_in_seconds: z
          .number()
          .int()
          .min(0)
          .max(ROLL_MAX_SECONDS)
          .optional()
          .describe(
            `How long the key this request came with keeps working: 0 (at once) to ${ROLL_MAX_SECONDS} (7 days); default ${ROLL_DEFAULT_SECONDS} (24 hours)`,
          ),
      })
      .optional(),
  })
  .nullish();

export const ApiKeyRollResponse = okEnvelope(
  'api_key',
  ApiKey.extend({ key: z.string().describe('The new key: shown this once, never again; store it now') }),
).extend({ rolled_key: ApiKey.describe('The key rolled away: it works until its expires_at') });
