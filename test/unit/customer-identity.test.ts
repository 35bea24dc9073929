import { customerKey, foldCustomerName } from '../../domain/customer-identity';

/* Who limit_per_customer counts as one customer (issue 34): one fold of the name. */
describe('the customer identity fold', () => {
  const same = (a: string, b: string) => expect(customerKey(undefined, a)).toBe(customerKey(undefined, b));

  it('a customer is their reference, else their folded name; the two never collide', () => {
    same('  GRACE Hopper ', 'grace hopper');
    expect(customerKey('r-1', 'Grace')).toBe(customerKey(' r-1 ', 'Ada'));
    expect(customerKey('grace hopper', 'x')).not.toBe(customerKey(undefined, 'grace hopper'));
  });

  it('ignores zero-width and other format characters, and a soft hyphen', () => {
    for (const invisible of ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u200e', '\u202e', '\ufe0f'])
      same(`Ada${invisible} Love${invisible}lace`, 'Ada Lovelace');
  });

  it('collapses inner white space, of any kind', () => {
    same('Ada  Lovelace', 'Ada Lovelace');
    same('Ada\t\u00a0\u3000Lovelace', 'Ada Lovelace');
  });

  it('folds compatibility forms and case (NFKC, then case folding)', () => {
    same('Ａｄａ Ｌｏｖｅｌａｃｅ', 'Ada Lovelace'); // full-width
    same('Stefan Straße', 'STEFAN STRASSE');
    same('Café', 'Cafe\u0301'); // precomposed or combining accent
  });

  it('folds look-alikes from other scripts (the UTS #39 confusables skeleton)', () => {
    same('\u0410da Lovelace', 'Ada Lovelace'); // Cyrillic capital A
    same('\u0430da lovel\u0430ce', 'ada lovelace'); // Cyrillic small a
    same('Ad\u0430 L\u043evel\u0430\u0441e', 'Ada Lovelace'); // Cyrillic a, o, a, es
    same('\u0391da', 'Ada'); // Greek capital alpha
  });

  it('still tells different names apart', () => {
    expect(foldCustomerName('Ada Lovelace')).not.toBe(foldCustomerName('Ada Lovelaces'));
    expect(foldCustomerName('Grace Hopper')).not.toBe(foldCustomerName('Ada Lovelace'));
    expect(foldCustomerName('José')).not.toBe(foldCustomerName('Jose'));
    expect(foldCustomerName('')).toBe('');
  });
});
