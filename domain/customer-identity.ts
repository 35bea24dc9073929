import unhomoglyph from 'unhomoglyph';

/*
 * Who a customer is, as restrictions.limit_per_customer counts them (issue 34: a name written with a
 * zero-width character, a soft hyphen, a double space or a Cyrillic look-alike was a new customer).
 * One fold, here only; the placing transaction stores its result on each voucher
 * (`vouchers.customer_key`) and counts by it, so changing it needs a migration that recomputes the
 * stored keys (as 2026_11_27_0043 did). docs/orders-and-vouchers.md, "The advertiser's restrictions".
 */

/** Format and default-ignorable characters: invisible, so they never tell two customers apart (soft hyphen, zero-width space and joiners, bidi marks, variation selectors…). */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * The confusables skeleton of Unicode's UTS #39 (section 4): decomposed, each character replaced by
 * its prototype from Unicode's confusables table, decomposed again. Two strings that look alike
 * have the same skeleton (Cyrillic `а` and Latin `a`; but also `rn` and `m`: it merges some
 * distinct names, the price of catching look-alikes). The table is the `unhomoglyph` package's
 * (pinned: another version may change stored keys).
 */
function skeleton(s: string): string {
  return unhomoglyph(s.normalize('NFD')).normalize('NFD');
}

/**
 * A customer's name folded to the identity limit_per_customer counts: Unicode NFKC (compatibility
 * forms: full-width letters, ligatures, no-break spaces), invisible characters removed, case folded
 * (upper then lower case: `ß` and `SS` agree), white space collapsed to single spaces and trimmed,
 * then the confusables skeleton, lower-cased (prototypes may be capitals). Not for display.
 */
export function foldCustomerName(name: string): string {
  const plain = name.normalize('NFKC').replace(INVISIBLE, '').toUpperCase().toLowerCase().replace(/\s+/gu, ' ').trim();
  return skeleton(plain).toLowerCase();
}

/**
 * The customer as limit_per_customer counts them: the publisher's `customer_reference` when the
 * order gives one (their own id, compared as given, trimmed), else its `customer_name` folded
 * (`foldCustomerName`). Prefixed, so a reference never equals a name by chance. Counted per
 * distribution client: publishers' customers are their own.
 */
export function customerKey(reference: string | null | undefined, name: string): string {
  const ref = reference?.trim();
  return ref ? `ref:${ref}` : `name:${foldCustomerName(name)}`;
}
