import type { Db } from './db';
import type { OfferInput } from '../schemas/offer';
import { ApiError, type ErrorDetail } from '../api/errors';
import { unownedAttachmentIds } from './attachments';
import { unknownCategoryIds } from './categories';

/**
 * Checks what an offer points at: category ids must exist, and attachments in
 * `creative.original_media` must be this client's own live uploads. Fails with a 422 naming each.
 */
export async function checkOfferReferences(db: Db, clientId: string, offer: OfferInput): Promise<void> {
  const details: ErrorDetail[] = [];
  const categoryIds = offer.advertiser.categories.map((c) => c.id);
  const unknown = new Set(await unknownCategoryIds(db, categoryIds));
  categoryIds.forEach((id, i) => {
    if (unknown.has(id))
      details.push({
        code: 'invalid_field',
        field: `advertiser.categories[${i}].id`,
        message: `category ${id} does not exist (see GET /categories)`,
      });
  });
  const mediaIds = offer.creative.original_media.map((m) => m.id);
  const unowned = new Set(await unownedAttachmentIds(db, clientId, mediaIds));
  mediaIds.forEach((id, i) => {
    if (unowned.has(id))
      details.push({
        code: 'invalid_field',
        field: `creative.original_media[${i}].id`,
        message: `attachment ${id} is not one of your attachments`,
      });
  });
  if (details.length) throw ApiError.withDetails(422, details);
}
