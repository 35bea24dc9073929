import { setImmediate as nextTurn } from 'node:timers/promises';
import { OFFER_IMPORT_MAX_ERROR_BYTES, OFFER_IMPORT_MAX_LINES } from '../../../domain/bulk';
import { OfferCreateBody } from '../../../schemas/offer-create';
import { SubmissionOfferResponse } from '../../../schemas/offer';
import type { ImportLine } from '../../../services/offer-imports';
import { ApiError, type ErrorDetail } from '../../errors';
import { jsonAsBody } from '../../plugins/content-negotiation';
import { bodyIssueDetails } from '../../plugins/error-handler';

/*
 * An offer import's file, checked line by line exactly as POST /offers checks its body (the same
 * parser, the same unknown-field rule, the same zod schema, the same error details), so a refused
 * line reports what POST /offers would have answered for it. The work is bounded
 * (docs/security.md#work-per-request-is-bounded): a line takes at most the bytes POST /offers takes
 * as a body, one line's errors are bounded as one answer's, the import's errors as a whole, and
 * the event loop is given back between lines.
 */

/** Time the check runs on the event loop before it lets other requests (and /health) in. */
const SLICE_MS = 20;

/** One line as POST /offers would take it: the offer to create, or the `errors` of the 4xx it would answer. */
function checkLine(text: string, maxLineBytes: number): Omit<ImportLine, 'line'> {
  const bytes = Buffer.byteLength(text);
  if (bytes > maxLineBytes)
    return {
      errors: [
        { code: 'payload_too_large', message: `the line is ${bytes} bytes; a line takes at most ${maxLineBytes}, as POST /offers does` },
      ],
    };
  try {
    const body = OfferCreateBody.safeParse(jsonAsBody(text, OfferCreateBody, SubmissionOfferResponse));
    return body.success ? { offer: body.data.offer } : { errors: bodyIssueDetails(body.error.issues) };
  } catch (err) {
    if (err instanceof ApiError) return { errors: err.errors };
    throw err;
  }
}

/** Keeps the import's error records within OFFER_IMPORT_MAX_ERROR_BYTES: past it, a line's record is its first detail's code only. */
function errorBudget() {
  let spent = 0;
  return (errors: ErrorDetail[]): ErrorDetail[] => {
    spent += Buffer.byteLength(JSON.stringify(errors));
    if (spent <= OFFER_IMPORT_MAX_ERROR_BYTES) return errors;
    return [
      {
        code: errors[0].code,
        message: `refused; its details are not kept: the import's errors passed ${OFFER_IMPORT_MAX_ERROR_BYTES} bytes`,
      },
    ];
  };
}

/**
 * The file's lines (numbered from 1, blank ones skipped, a leading byte order mark dropped), each checked; refuses an empty file or
 * one of too many lines. Yields to the event loop every SLICE_MS, so one file never holds it for
 * longer than that plus one line's check.
 */
export async function checkedLines(file: string, maxLineBytes: number): Promise<ImportLine[]> {
  const lines: ImportLine[] = [];
  const budget = errorBudget();
  let sliceStart = performance.now();
  for (let from = 0, number = 1; from <= file.length; number++) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
    const found = file.indexOf('\n', from);
    const nl = found === -1 ? file.length : found;
    // A byte order mark (an editor's, at the file's start) is no content, as in a code import's CSV.
    const text = file.charCodeAt(from) === 0xfeff ? file.slice(from + 1, nl) : file.slice(from, nl);
    from = nl + 1;
    if (text.trim() === '') continue;
    if (lines.length === OFFER_IMPORT_MAX_LINES)
      throw new ApiError(
        413,
        'payload_too_large',
        `the file has more than ${OFFER_IMPORT_MAX_LINES} lines; an import takes at most ${OFFER_IMPORT_MAX_LINES}`,
      );
    const checked = checkLine(text, maxLineBytes);
    lines.push({ line: number, ...checked, ...(checked.errors ? { errors: budget(checked.errors as ErrorDetail[]) } : {}) });
  }
  if (lines.length === 0) throw new ApiError(422, 'invalid_field', 'the file has no lines: send one {"offer": …} per line');
  return lines;
}
