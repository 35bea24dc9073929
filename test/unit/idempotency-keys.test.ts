import { badIdempotencyKey, idempotencyRequestText } from '../../domain/idempotency';

describe('Idempotency-Key values and the request a key names', () => {
  it('takes 1 to 255 printable ASCII characters without spaces, once', () => {
    expect(badIdempotencyKey(undefined)).toBeUndefined();
    expect(badIdempotencyKey('till-3:receipt/8812')).toBeUndefined();
    expect(badIdempotencyKey('x'.repeat(255))).toBeUndefined();
    for (const bad of ['', 'x'.repeat(256), 'two words', 'tab\there', 'nul\u0000', 'é'])
      expect(badIdempotencyKey(bad)).toMatch(/printable/);
    expect(badIdempotencyKey(['a', 'b'])).toBe('must be given once');
  });

  it('is one request whatever the order of the body fields; another method, path or body is another', () => {
    const a = idempotencyRequestText('post', '/p', { offer: { title: 't', price: { amount: 1, currency_code: 'USD' } } });
    const b = idempotencyRequestText('POST', '/p', { offer: { price: { currency_code: 'USD', amount: 1 }, title: 't' } });
    expect(a).toBe(b);
    expect(idempotencyRequestText('PUT', '/p', { offer: {} })).not.toBe(idempotencyRequestText('POST', '/p', { offer: {} }));
    expect(idempotencyRequestText('POST', '/q', { offer: {} })).not.toBe(idempotencyRequestText('POST', '/p', { offer: {} }));
    expect(idempotencyRequestText('POST', '/p', { offer: { a: 1 } })).not.toBe(idempotencyRequestText('POST', '/p', { offer: { a: 2 } }));
    expect(idempotencyRequestText('DELETE', '/p', undefined)).toBe(idempotencyRequestText('DELETE', '/p', undefined));
  });
});
