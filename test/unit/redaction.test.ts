import { Writable } from 'node:stream';
import { createLogger } from '../../platform/logger';
import { redactUrl } from '../../platform/redaction';

/*
 * The one redaction list, applied by the logger to every line whatever its shape: an error's
 * message and stack, a child logger's bindings, headers and bodies at any depth.
 */
function captured(write: (log: ReturnType<typeof createLogger>) => void): string {
  let text = '';
  const log = createLogger('debug', {
    stream: new Writable({
      write(chunk, _enc, done) {
        text += chunk.toString();
        done();
      },
    }),
  });
  write(log);
  return text;
}

describe('log redaction', () => {
  it('replaces credentials in paths and query strings, keeping the rest of the URL', () => {
    expect(redactUrl('/customer/vouchers/5e98f00d?x=1')).toBe('/customer/vouchers/[redacted]?x=1');
    expect(redactUrl('/distribution/beta/advertisers/adv_1/vouchers/ABCD-EFGH.xml')).toBe(
      '/distribution/beta/advertisers/adv_1/vouchers/[redacted]',
    );
    expect(redactUrl('/submission/beta/offers?per_page=3&api_key=sk_1&Token=t&category_key=c#f')).toBe(
      '/submission/beta/offers?per_page=3&api_key=[redacted]&Token=[redacted]&category_key=c#f',
    );
    expect(redactUrl('/submission/beta/offers/ofr_1/vouchers/vch_1')).toBe('/submission/beta/offers/ofr_1/vouchers/vch_1');
  });

  it('leaves no credential in an error log, its stack, child bindings or nested fields', () => {
    const text = captured((log) => {
      const child = log.child({ url: '/customer/vouchers/tok_secret_1' });
      child.error({ err: new Error('GET /submission/beta/advertisers/adv_1/vouchers/CODE-SECRET-2?key=sk_secret_3') }, 'failed');
      child.info(
        {
          req: { headers: { authorization: 'Basic c2VjcmV0', cookie: ['a=secret_4'], 'X-Service-Api-Key': 'sk_secret_5' } },
          body: { voucher: { redemption_code: 'CODE-SECRET-6', barcode: 1234567890123 }, callback: { secret: 'whsec_secret_7' } },
          code: 'not_found',
        },
        'see https://example.com/cb?signature=sig_secret_8',
      );
    });
    for (const secret of [
      'tok_secret_1',
      'CODE-SECRET-2',
      'sk_secret_3',
      'c2VjcmV0',
      'secret_4',
      'sk_secret_5',
      'CODE-SECRET-6',
      '1234567890123',
      'whsec_secret_7',
      'sig_secret_8',
    ])
      expect(text).not.toContain(secret);
    const [error, info] = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(error.err.stack).toContain('/vouchers/[redacted]?key=[redacted]');
    expect(info.req.headers).toEqual({ authorization: '[redacted]', cookie: '[redacted]', 'X-Service-Api-Key': '[redacted]' });
    expect(info.code).toBe('not_found');
  });
});
