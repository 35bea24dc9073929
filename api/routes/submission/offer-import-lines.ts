import { OFFER_IMPORT_MAX_LINES } from '../../../domain/bulk';
import { OfferCreateBody } from '../../../schemas/offer-create';
import { SubmissionOfferResponse } from '../../../schemas/offer';
import type { ImportLine } from '../../../services/offer-imports';
import { ApiError } from '../../errors';
import { jsonAsBody } from '../../plugins/content-negotiation';
import { bodyIssueDetails } from '../../plugins/error-handler';

/*
 * An offer import's file, checked line by line exactly as POST /offers checks its body (the same
 * parser, the same unknown-field rule, the same zod schema, the same error details), so a refused
 * line reports what POST /offers would have answered for it.
 */

/** One line as POST /offers would take it: the offer to create, or the `errors` of the 4xx it would answer. */
function checkLine(text: string): Omit<ImportLine, 'line'> {
  try {
    const body = OfferCreateBody.safeParse(jsonAsBody(text, OfferCreateBody, SubmissionOfferResponse));
    return body.success ? { offer: body.data.offer } : { errors: bodyIssueDetails(body.error.issues) };
  } catch (err) {
    if (err instanceof ApiError) return { errors: err.errors };
    throw err;
  }
}

/** The file's lines (numbered from 1, blank ones skipped), each checked; refuses an empty file or one too long. */
export function checkedLines(file: string): ImportLine[] {
  const lines: { line: number; text: string }[] = [];
  file.split('\n').forEach((text, i) => {
    if (text.trim() !== '') lines.push({ line: i + 1, text });
  });
  if (lines.length === 0) throw new ApiError(422, 'invalid_field', 'the file has no lines: send one {"offer": …} per line');
  if (lines.length > OFFER_IMPORT_MAX_LINES)
    throw new ApiError(413, 'payload_too_large', `the file has ${lines.length} lines; an import takes at most ${OFFER_IMPORT_MAX_LINES}`);
  return lines.map(({ line, text }) => ({ line, ...checkLine(text) }));
}
