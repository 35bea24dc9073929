/*
 * The one list of what a log must never hold: credentials in URL paths and query strings, and the
 * header and body fields that carry one. The logger (platform/logger.ts) applies it to every line
 * it writes — request logs, error logs with their stacks, the Temporal worker's logs routed through
 * it — and the request log's `url` (api/plugins/metrics.ts) is redacted with it before that.
 * A new credential in a URL or a field name belongs here, and in test/stack/api/logging.test.ts's journey.
 */

export const REDACTED = '[redacted]';

/** URL path segments that are credentials; each pattern keeps its first group and replaces the segment after it. */
export const SECRET_PATH_SEGMENTS: readonly RegExp[] = [
  // The customer voucher page's token (print_url): the address is the key.
  /(\/customer\/vouchers\/)[^/?#\s"'\\]+/gi,
  // A redemption code or barcode: GET/PUT /{submission,distribution}/beta/advertisers/:id/vouchers/:ref.
  /(\/advertisers\/[^/?#\s"'\\]+\/vouchers\/)[^/?#\s"'\\]+/gi,
  // A counter staff member's one-time sign-in link (/merchant/sign-in/:code).
  /(\/merchant\/sign-in\/)[^/?#\s"'\\]+/gi,
];

/** Query parameters whose value is a credential (matched case-insensitively). */
export const SECRET_QUERY_KEYS: readonly string[] = [
  'api_key',
  'apikey',
  'key',
  'token',
  'access_token',
  'page_token',
  'code',
  'redemption_code',
  'barcode',
  'password',
  'secret',
  'signature',
  'sig',
];

/** Header and body field names whose value is a credential (matched case-insensitively, at any depth). */
export const SECRET_FIELD_KEYS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-service-api-key',
  'api_key',
  'apikey',
  'password',
  'passphrase',
  'secret',
  'signing_secret',
  'callback_secret',
  'previous_secret',
  'token',
  'page_token',
  'access_token',
  'redemption_code',
  'barcode',
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
const alternatives = (keys: readonly string[]) => keys.map(escape).join('|');

// `?api_key=…` or `&code=…` anywhere in a string (a URL, an error message, a stack).
const QUERY = new RegExp(`([?&](?:${alternatives(SECRET_QUERY_KEYS)})=)[^&#\\s"'\\\\]*`, 'gi');
// `"password":"…"`, `"cookie":["…"]` or `"token":123` in a JSON line, at any depth.
const JSON_STRING = '"(?:[^"\\\\]|\\\\.)*"';
const FIELD = new RegExp(
  `("(?:${alternatives(SECRET_FIELD_KEYS)})"\\s*:\\s*)(?:${JSON_STRING}|\\[(?:\\s*${JSON_STRING}\\s*,?)*\\]|-?\\d[\\d.eE+-]*)`,
  'gi',
);

/** A URL (or any text holding URLs) with every credential of the lists above replaced by `[redacted]`. */
export function redactUrl(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATH_SEGMENTS) out = out.replace(pattern, `$1${REDACTED}`);
  return out.replace(QUERY, `$1${REDACTED}`);
}

/** One serialized JSON log line with every credential removed: URLs in any string, and credential fields at any depth. */
export function redactLogLine(line: string): string {
  return redactUrl(line).replace(FIELD, `$1"${REDACTED}"`);
}
