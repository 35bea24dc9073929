import type { FailureDetail } from '../domain/failures';
import { Failure } from '../domain/failures';
import type { OfferInput } from '../schemas/offer';
import { findAdvertiser } from '../store/advertisers';
import { unknownDistributionClientIds } from '../store/api-clients';
import { unownedAttachmentIds } from '../store/attachments';
import { unknownCategoryIds } from '../store/categories';
import type { ServiceDeps } from './deps';

/**
 * Checks what an offer points at: category ids must exist, and attachments in
 * `creative.original_media` must be this client's own live uploads. Refuses naming each.
 */
export async function checkOfferReferences(deps: Pick<ServiceDeps, 'db'>, clientId: string, offer: OfferInput): Promise<void> {
  const details: FailureDetail[] = [];
  const categoryIds = offer.advertiser.categories.map((c) => c.id);
  const unknown = new Set(await unknownCategoryIds(deps.db, categoryIds));
  categoryIds.forEach((id, i) => {
    if (unknown.has(id))
      details.push({
        code: 'invalid_field',
        field: `advertiser.categories[${i}].id`,
        message: `category ${id} does not exist (see GET /categories)`,
      });
  });
  const mediaIds = offer.creative.original_media.map((m) => m.id);
  const unowned = new Set(await unownedAttachmentIds(deps.db, clientId, mediaIds));
  mediaIds.forEach((id, i) => {
    if (unowned.has(id))
      details.push({
        code: 'invalid_field',
        field: `creative.original_media[${i}].id`,
        message: `attachment ${id} is not one of your attachments`,
      });
  });
  // Exclusivity is granted to distribution clients by id: a name the service cannot resolve would exclude everyone.
  const channels = offer.exclusivity?.channels ?? [];
  const strangers = new Set(await unknownDistributionClientIds(deps.db, channels));
  channels.forEach((id, i) => {
    if (strangers.has(id))
      details.push({
        code: 'invalid_field',
        field: `exclusivity.channels[${i}]`,
        message: `${id} is not a distribution client id: exclusivity names distributors by the client id they give you (docs/distribution-offers.md, "Exclusive offers")`,
      });
  });
  if (offer.advertiser.id && !(await findAdvertiser(deps.db, clientId, offer.advertiser.id)))
    details.push({
      code: 'invalid_field',
      field: 'advertiser.id',
      message: `advertiser ${offer.advertiser.id} is not one of your advertisers (see GET /advertisers)`,
    });
  if (details.length) throw Failure.of(details);
}
