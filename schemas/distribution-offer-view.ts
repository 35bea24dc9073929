import type { AttachmentRow } from '../store/database';
import type { FoundOffer } from '../store/distribution-search';
import { utcDay } from '../domain/dates';
import type { OfferStatus } from '../domain/offer-lifecycle';
import { offerClosedAt } from '../domain/offer-closing';
import { DEFAULT_REVENUE_SHARES, distributionRevenues, type RevenueShares } from '../domain/money';
import type { DistributionMedium, DistributionOffer } from './distribution-offer';
import type { OfferInput } from './offer';
import { iso, isoOrNull } from './common';
import { highlightFragment, MATCHED_FIELDS } from '../domain/keyword-search';

/*
 * The distribution read model's view: what a publisher sees of an offer. The revenues are derived
 * here once; the closing time by the rule both interfaces show (domain/offer-closing.ts).
 */

/** The SKU publishers file the offer under: the offer id's unique part, so it is stable and never reused. */
export function skuOf(offerId: string): string {
  return `OM-${offerId.slice(offerId.indexOf('_') + 1)}`;
}

/** Where the offers' media are served: the interface's absolute address, and the media's live attachment rows by id. */
export interface MediaLinks {
  base: string;
  attachments: ReadonlyMap<string, AttachmentRow>;
}

/** The route that serves one medium of an offer (api/routes/distribution/offers.ts), under the interface's address. */
export function mediumUrl(base: string, offerId: string, mediumId: string): string {
  return `${base}/offers/${encodeURIComponent(offerId)}/media/${encodeURIComponent(mediumId)}`;
}

/** The offer's media with their URL, type and size; an attachment deleted since (or not the offer's own client's) keeps only its id. */
function distributionMedia(row: FoundOffer, doc: OfferInput, links?: MediaLinks): DistributionMedium[] {
  return (doc.creative.original_media ?? []).map(({ id }) => {
    const att = links?.attachments.get(id);
    if (!links || !att || att.client_id !== row.client_id) return { id };
    return { id, url: mediumUrl(links.base, row.id, id), content_type: att.content_type, width: att.width, height: att.height };
  });
}

/** A keyword search's fragments by field (store/distribution-keywords.ts) as the offer shows them: in MATCHED_FIELDS order, highlighted. */
function matchedFields(byField: Record<string, string>): NonNullable<DistributionOffer['matched']> {
  return MATCHED_FIELDS.filter((f) => byField[f] !== undefined).map((field) => ({ field, fragment: highlightFragment(byField[field]) }));
}

/** The offer as the distribution interface shows it: common fields and distribution attributes only. */
export function toDistributionOffer(
  row: FoundOffer,
  shares: RevenueShares = DEFAULT_REVENUE_SHARES,
  today = utcDay(),
  media?: MediaLinks,
): DistributionOffer {
  const doc = row.document as OfferInput;
  const a = doc.advertiser;
  const revenues = distributionRevenues(doc.price, shares);
  const closedAt = offerClosedAt(row, today);
  return {
    id: row.id,
    sku: skuOf(row.id),
    title: doc.title,
    type: doc.type,
    status: row.status as OfferStatus,
    price: doc.price,
    value: doc.value,
    discount: doc.discount,
    fine_print: doc.fine_print,
    start_date: doc.start_date,
    end_date: doc.end_date,
    items: doc.items,
    checkins_required: doc.checkins_required,
    vouchers_activation_date: doc.vouchers_activation_date,
    vouchers_expire: doc.vouchers_expire,
    quantity_in_stock: row.quantity_in_stock,
    creative: { ...doc.creative, original_media: distributionMedia(row, doc, media) },
    demographics: doc.demographics,
    restrictions: doc.restrictions,
    advertiser: {
      id: row.advertiser_id,
      name: a.name,
      description: a.description,
      categories: a.categories,
      redemption_locations: a.redemption_locations,
      website_url: a.website_url,
      public_phone: a.public_phone,
    },
    distributor_revenue: revenues.distributor,
    account_revenue: revenues.account,
    ...(row.distance !== undefined && row.distance !== null ? { distance: Math.round(row.distance * 100) / 100 } : {}),
    ...(row.matched ? { matched: matchedFields(row.matched) } : {}),
    published_at: isoOrNull(row.published_at),
    updated_at: iso(row.updated_at),
    closed_at: closedAt ? closedAt.toISOString() : null,
  };
}
