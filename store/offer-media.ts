import { sql } from 'kysely';
import type { Trx } from './db';
import { TERMINAL } from '../domain/offer-lifecycle';

/*
 * Which offers show an attachment (`creative.original_media`), for deleting one: an offer that can
 * still be published keeps its reviewed media, so the attachment cannot go while one names it
 * (docs/attachments-and-comments.md, "Ownership and deletion").
 */

/** At most this many offers are named in a refusal; the client learns of the rest after fixing those. */
export const MAX_OFFERS_NAMED = 20;

/** The client's offers, not ended (cancelled or closed), whose media include the attachment; oldest first. */
export async function offersShowingAttachment(trx: Trx, clientId: string, attachmentId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('offers')
    .select('id')
    .where('client_id', '=', clientId)
    .where('status', 'not in', [...TERMINAL])
    .where(sql<boolean>`document -> 'creative' -> 'original_media' @> jsonb_build_array(jsonb_build_object('id', ${attachmentId}::text))`)
    .orderBy('created_at')
    .limit(MAX_OFFERS_NAMED)
    .execute();
  return rows.map((r) => r.id);
}
