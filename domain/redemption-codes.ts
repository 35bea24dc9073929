/*
 * The codes people type: voucher redemption codes and the counter's sign-in codes. One alphabet
 * (Crockford base32 without I, L, O, U: read aloud, typed on a phone or at a till without
 * misreading), grouped by four with dashes; and what a typed code is taken to mean.
 */

export const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** One character per random byte, grouped `XXXX-XXXX-…` (the caller brings the randomness: 16 bytes, 80 bits). */
export function groupedCode(randomBytes: Uint8Array): string {
  const chars = Array.from(randomBytes, (b) => CODE_ALPHABET[b & 31]).join('');
  return chars.match(/.{1,4}/g)!.join('-');
}

/**
 * The forms of a typed code to look a voucher up by: as typed, upper case, and, when it is made of
 * the alphabet's groups, those groups joined by dashes, so that spaces (`XG9A 014K ADAQ JSKE`), no
 * separator at all, or lower case find the code as issued. An advertiser's own codes may hold
 * spaces: the typed form is always among the candidates.
 */
export function codeLookupForms(typed: string): string[] {
  const trimmed = typed.trim();
  const forms = [trimmed, trimmed.toUpperCase()];
  const plain = trimmed.toUpperCase().replace(/[\s-]+/g, '');
  if (plain.length >= 8 && plain.length % 4 === 0 && [...plain].every((c) => CODE_ALPHABET.includes(c)))
    forms.push(plain.match(/.{4}/g)!.join('-'));
  return [...new Set(forms)];
}

/** A typed sign-in code as it was issued: upper case, no spaces or dashes, misread letters read as digits. */
export function normalizeSignInCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
}
