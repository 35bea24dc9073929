import { Failure, type FailureDetail } from '../domain/failures';
import type { OfferInput } from '../schemas/offer';
import { findAdvertiser } from '../store/advertisers';
import { unknownDistributionClientIds } from '../store/api-clients';
import { unownedAttachmentIds } from '../store/attachments';
import { unknownCategoryIds } from '../store/categories';
import type { ServiceDeps } from './deps';

/** An invalid_field detail for each of `ids` among `refused`, at its own place (`field(i)`). */
export function refusedIds<T>(
  ids: readonly T[],
  refused: readonly T[],
  field: (i: number) => string,
  message: (id: T, i: number) => string,
) {
  const bad = new Set(refused);
  return ids.flatMap((id, i): FailureDetail[] =>
    bad.has(id) ? [{ code: 'invalid_field', field: field(i), message: message(id, i) }] : [],
  );
}

/**
 * Checks what an offer points at: category ids must exist, and attachments in
 * `creative.original_media` must be this client's own live uploads. Refuses naming each.
 */
export async function checkOfferReferences(deps: Pick<ServiceDeps, 'db'>, clientId: string, offer: OfferInput): Promise<void> {
  const categoryIds = offer.advertiser.categories.map((c) => c.id);
  const mediaIds = offer.creative.original_media.map((m) => m.id);
  // Exclusivity is granted to distribution clients by id: a name the service cannot resolve would exclude everyone.
  const channels = offer.exclusivity?.channels ?? [];
  const details = [
    ...refusedIds(
      categoryIds,
      await unknownCategoryIds(deps.db, categoryIds),
      (i) => `advertiser.categories[${i}].id`,
      (id) => `category ${id} does not exist (see GET /categories)`,
    ),
    ...refusedIds(
      mediaIds,
      await unownedAttachmentIds(deps.db, clientId, mediaIds),
      (i) => `creative.original_media[${i}].id`,
      (id) => `attachment ${id} is not one of your attachments`,
    ),
    ...refusedIds(
      channels,
      await unknownDistributionClientIds(deps.db, channels),
      (i) => `exclusivity.channels[${i}]`,
      (id) =>
        `${id} is not a distribution client id: exclusivity names distributors by the client id they give you (docs/distribution-offers.md, "Exclusive offers")`,
    ),
  ];
  if (offer.advertiser.id && !(await findAdvertiser(deps.db, clientId, offer.advertiser.id)))
    details.push({
      code: 'invalid_field',
      field: 'advertiser.id',
      message: `advertiser ${offer.advertiser.id} is not one of your advertisers (see GET /advertisers)`,
    });
  if (details.length) throw Failure.of(details);
}
