import net from 'node:net';
import { z } from 'zod';
import { keyId, parseSecretKey } from './secret-box';

/* The kinds of value settings take (platform/config-schema.ts): each refuses a wrong value with a message naming the fault. */

/** Booleans in the environment: only these spellings, so a typo is an error and not a silent `false`. */
export const envBoolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
/** A whole number (the environment's text coerced). */
export const whole = z.coerce.number().int();
export const port = whole.min(1).max(65535);
export const seconds = whole.min(1);
/** A value that must not be empty (empty counts as unset: platform/config.ts). */
export const text = z.string().min(1);
export const optionalText = text.optional();
export const optionalUrl = z.string().url().optional();

/**
 * What docs/configuration.md shows for a setting (`npm run docs:config` renders the table from the
 * schema): what it is, and why an operator would change it: every setting of our own has a `why`
 * (Temporal's and OpenTelemetry's standard variables may go without).
 */
export const doc = (description: string, why: string) => ({ description, why });

/** As `doc`, for a setting without a default in the schema: also what happens when it is unset. */
export const unset = (description: string, whenUnset: string, why?: string) => ({ description, unset: whenUnset, ...(why ? { why } : {}) });

/** An IP address or a CIDR block (`10.0.0.0/8`, `fd00::/8`), as Fastify's trustProxy takes them. */
function isAddressOrBlock(s: string): boolean {
  const [addr, bits, ...rest] = s.split('/');
  const family = net.isIP(addr);
  if (!family || rest.length) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/**
 * CALLBACK_SECRET_KEY: one key, or a comma-separated list (current key first). Each entry must be a
 * key, and no key may appear twice (compared by key id, so two spellings of one key count as one).
 * Messages name entries by position, never by value.
 */
export function secretKeyList(value: string, ctx: z.RefinementCtx): string[] {
  const entries = value.split(',').map((e) => e.trim());
  const where = (i: number) => (entries.length > 1 ? `key ${i + 1} of ${entries.length}: ` : '');
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (!entry) return ctx.addIssue({ code: 'custom', message: `${where(i)}empty (a stray comma?)` });
    try {
      parseSecretKey(entry);
    } catch (err) {
      return ctx.addIssue({ code: 'custom', message: `${where(i)}${(err as Error).message}` });
    }
    const id = keyId(entry);
    const first = seen.get(id);
    if (first !== undefined) ctx.addIssue({ code: 'custom', message: `key ${i + 1} is the same key as key ${first + 1}` });
    else seen.set(id, i);
  });
  return entries;
}

/**
 * TRUST_PROXY: off when unset (X-Forwarded-* ignored, the client is the socket's peer); a hop count
 * (`1`: one proxy in front); or the proxies' addresses/blocks. Never "trust everyone": that lets any
 * client pick its own address (docs/security.md).
 */
export const trustProxy = z.string().transform((s, ctx): number | string[] | false => {
  const v = s.trim();
  if (/^\d{1,2}$/.test(v)) return Number(v) === 0 ? false : Number(v);
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (list.length && list.every(isAddressOrBlock)) return list;
  ctx.addIssue({ code: 'custom', message: 'must be a hop count (e.g. 1) or comma-separated proxy addresses/CIDR blocks' });
  return z.NEVER;
});

/** An absolute http(s) base URL without a trailing slash, e.g. `https://api.example.com`. */
export const baseUrl = z
  .string()
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), 'must be an http:// or https:// URL')
  .refine((u) => !/[?#]/.test(u), 'must not hold a query or fragment')
  .transform((u) => u.replace(/\/+$/, ''));
