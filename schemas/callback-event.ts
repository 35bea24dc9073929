import type { RevenueShares } from '../domain/money';
import { toDistributionOffer } from './distribution-offer-view';
import { toSubmissionOffer } from './offer-view';
import type { OfferEventRow, OfferRow } from '../store/database';
import type { FoundOffer } from '../store/distribution-search';
import type { CallbackFor } from '../store/callback-fanout';
import type { EndpointAudience } from '../store/callback-endpoints';
import { SELLABLE, TERMINAL, type OfferStatus } from '../domain/offer-lifecycle';
import { openTo, openWhenWritten } from '../domain/exclusivity';
import { utcDay } from '../domain/dates';

/*
 * Which outbox events reach whom, under which name (docs/callbacks.md is the published form).
 * Submission clients hear about their own offers; distribution clients hear about offers they can
 * sell, in their own vocabulary (published, changed, suspended, closed, sold out).
 */

/** Outbox event types delivered as is to the offer's own submission client. */
export const SUBMISSION_EVENT_TYPES = [
  'offer.created',
  'offer.status_changed',
  'offer.published',
  'offer.updated',
  'offer.review_started',
  'offer.review_overdue',
  'offer.stock_changed',
  'offer.sold_out',
  'offer.closed',
  'voucher.redeemed',
  'voucher.redemption_rolled_back',
  'voucher.balance_voided',
] as const;
const SUBMISSION_TYPES = new Set<string>(SUBMISSION_EVENT_TYPES);

/** Events about one voucher: for the offer's submission client and the distribution client that sold it, nobody else. */
export const VOUCHER_EVENT_TYPES = ['voucher.redeemed', 'voucher.redemption_rolled_back', 'voucher.balance_voided'] as const;
const VOUCHER_TYPES = new Set<string>(VOUCHER_EVENT_TYPES);

/** The names distribution clients see offer events under (voucher events keep theirs). */
export const DISTRIBUTION_EVENT_TYPES = ['offer.published', 'offer.changed', 'offer.suspended', 'offer.closed', 'offer.sold_out'] as const;
export type DistributionEventType = (typeof DISTRIBUTION_EVENT_TYPES)[number];

/** Events about no offer, each addressed to one client, on either interface (`eventTypeFor`): a stored statement, a disabled endpoint. */
const EITHER_CLIENT_EVENT_TYPES = ['statement.ready', 'endpoint.disabled'] as const;
/** An import's end: addressed to the client that imported, and only a submission client imports. */
const IMPORT_EVENT_TYPES = ['voucher_import.completed', 'offer_import.completed'] as const;
/** Every event about no offer, addressed to one client. */
export const CLIENT_EVENT_TYPES = [...EITHER_CLIENT_EVENT_TYPES, ...IMPORT_EVENT_TYPES] as const;

/**
 * Every event type a client of this interface can receive: what an endpoint's `event_types` may
 * name (docs/callbacks.md "Endpoint settings").
 */
export function receivableEventTypes(iface: 'submission' | 'distribution'): readonly string[] {
  return iface === 'submission'
    ? [...SUBMISSION_EVENT_TYPES, ...CLIENT_EVENT_TYPES]
    : [...DISTRIBUTION_EVENT_TYPES, ...VOUCHER_EVENT_TYPES, ...EITHER_CLIENT_EVENT_TYPES];
}

/** The submission name of an outbox event: the same, or null for operators-only events. */
export function submissionEventType(event: Pick<OfferEventRow, 'type'>): string | null {
  return SUBMISSION_TYPES.has(event.type) ? event.type : null;
}

const sellable = (s: unknown) => SELLABLE.includes(s as OfferStatus);

/**
 * The distribution name of an outbox event, or null when distributors need not hear of it: an
 * offer never published is none of their business, and edits or stock moves of an offer they
 * cannot sell right now change nothing for them (they hear `offer.published` when it returns).
 */
export function distributionEventType(
  event: Pick<OfferEventRow, 'type' | 'data'>,
  offer: Pick<OfferRow, 'status' | 'published_at'>,
): DistributionEventType | null {
  if (!offer.published_at) return null;
  const data = (event.data ?? {}) as Record<string, unknown>;
  // The offer's start_date began (approved earlier): it is on sale from now, if still sellable.
  if (event.type === 'offer.published') return sellable(offer.status) ? 'offer.published' : null;
  if (event.type === 'offer.status_changed' || event.type === 'offer.closed') {
    // Approved before its start_date: not on sale yet; `offer.published` follows when the day begins.
    if (data.publish_deferred) return null;
    const was = sellable(data.old_status);
    const is = sellable(data.new_status);
    if (!was && is) return 'offer.published';
    if (was && is) return 'offer.changed';
    if (TERMINAL.includes(data.new_status as OfferStatus) || event.type === 'offer.closed') return 'offer.closed';
    if (was) return 'offer.suspended'; // suspended, withdrawn (for editing) or any other pause
    return null;
  }
  if (!sellable(offer.status)) return null;
  if (event.type === 'offer.sold_out') return 'offer.sold_out';
  if (event.type === 'offer.updated' || event.type === 'offer.stock_changed') return 'offer.changed';
  return null;
}

/** Who looks at an event: a client of one interface (a callback endpoint's owner, or a change-feed reader). */
export type EventViewer = Pick<EndpointAudience, 'interface' | 'client_id'>;

/** The distribution client that sold the voucher a voucher event is about. */
const sellerOf = (event: Pick<OfferEventRow, 'data'>) => (event.data as { distribution_client_id?: string } | null)?.distribution_client_id;

/**
 * The one visibility rule of offer events, for callbacks and the change feed alike: the type under
 * which this client sees the event, or null when it does not see it. A submission client sees its
 * own offers' events; a distribution client those of offers it can sell and that were open to it
 * (exclusivity) when the event was written (decision 0074), in its own vocabulary, and the
 * redemptions of vouchers it sold.
 * The offer is its row as it is now (at dispatch for a callback, at reading for the feed).
 */
export function eventTypeFor(
  event: Pick<OfferEventRow, 'type' | 'data' | 'client_id' | 'created_at'> & { exclusivity?: unknown },
  offer: Pick<OfferRow, 'client_id' | 'status' | 'published_at' | 'document'> | null,
  viewer: EventViewer,
): string | null {
  // An event addressed to one client (statement.ready, endpoint.disabled) is that client's alone, on either interface.
  if (event.client_id) return event.client_id === viewer.client_id ? event.type : null;
  if (!offer) return null;
  if (viewer.interface === 'submission') return viewer.client_id === offer.client_id ? submissionEventType(event) : null;
  // A voucher's redemption is news only to the distribution client that sold it.
  if (VOUCHER_TYPES.has(event.type)) return sellerOf(event) === viewer.client_id ? event.type : null;
  // An offer exclusive to other distributors when the event happened did not exist for this one then.
  if (!openWhenWritten(event, offer.document, viewer.client_id)) return null;
  return distributionEventType(event, offer);
}

/**
 * Whether an offer event this distribution client sees (it was open to it then) is about an offer
 * no longer open to it now: its body then names the offer by id only, never its current content.
 */
export function offerClosedToViewerNow(
  event: Pick<OfferEventRow, 'type'>,
  offer: Pick<OfferRow, 'document'> | null,
  viewer: EventViewer,
): boolean {
  if (!offer || viewer.interface !== 'distribution' || VOUCHER_TYPES.has(event.type)) return false;
  return !openTo(offer.document, viewer.client_id, utcDay());
}

/**
 * The offer as a voucher event shows it to a distribution client the offer is no longer open to
 * (an exclusivity edited since the sale): as the voucher's order sold it (`asSold`), never as it is
 * now, so the vouchers it sold tell it nothing of the offer's current content. Undefined when the
 * offer as it is now is shown (every other event and viewer, or no copy kept: items written
 * outside the placing transaction).
 */
export function soldView(
  event: Pick<OfferEventRow, 'type'>,
  offer: Pick<OfferRow, 'document'> | null,
  viewer: EventViewer,
  asSold: FoundOffer | undefined,
): FoundOffer | undefined {
  if (!offer || viewer.interface !== 'distribution' || !VOUCHER_TYPES.has(event.type)) return undefined;
  return openTo(offer.document, viewer.client_id, utcDay()) ? undefined : asSold;
}

/** Change details every event carries beside the offer; internal bookkeeping stays out. */
function changeDetails(event: Pick<OfferEventRow, 'type' | 'data'>, audience: 'submission' | 'distribution'): Record<string, unknown> {
  // distribution_client_id routes voucher events (callbackBuilder); it is not news to anyone.
  const { actor, distribution_client_id: _seller, ...rest } = (event.data ?? {}) as Record<string, unknown>;
  const details: Record<string, unknown> = audience === 'submission' ? { ...rest, ...(actor ? { changed_by: actor } : {}) } : rest;
  if (audience === 'distribution') {
    delete details.reason; // reviewers' and advertisers' reasons are between them and the service
    if (event.type === 'offer.stock_changed' && !details.changed_fields) details.changed_fields = ['quantity_in_stock'];
  }
  return details;
}

export interface CallbackPayload {
  id: string;
  type: string;
  created_at: string;
  sequence: number;
  data: Record<string, unknown>;
}

/** The body of a callback: the event, its per-offer sequence, the offer as the receiver's interface shows it, and what changed. */
export function callbackPayload(
  event: OfferEventRow,
  type: string,
  offer: OfferRow | null,
  audience: 'submission' | 'distribution',
  shares: RevenueShares,
  /** The offers' views already made, by offer id: a page of the change feed holds many events of one offer. */
  views?: Map<string, unknown>,
  /** Shown instead of the offer as it is now (`soldView`): the offer as the voucher's order sold it. */
  sold?: FoundOffer,
): CallbackPayload {
  const head = { id: event.id, type, created_at: new Date(event.created_at).toISOString(), sequence: event.sequence };
  // A client event carries its own data (statement.ready: the statement's id, month and addresses).
  if (!offer) return { ...head, data: event.data as Record<string, unknown> };
  // As GET /…/offers/:id of the receiver's interface shows it, with this deployment's revenue shares.
  // As plain JSON (no undefined fields), made once per offer when the caller keeps `views`.
  let shown = sold ? JSON.parse(JSON.stringify(toDistributionOffer(sold, shares))) : views?.get(offer.id);
  if (shown === undefined) {
    shown = JSON.parse(JSON.stringify(audience === 'submission' ? toSubmissionOffer(offer) : toDistributionOffer(offer, shares)));
    views?.set(offer.id, shown);
  }
  return { ...head, data: { offer: shown, ...JSON.parse(JSON.stringify(changeDetails(event, audience))) } };
}

/**
 * What each endpoint hears of an event (the store's `CallbackFor`): a submission client only of its
 * own offers, a distribution client in its own vocabulary; the body as `callbackPayload` builds it.
 */
export function callbackBuilder(shares: RevenueShares): CallbackFor {
  return (event, offer, endpoint, asSold) => {
    const type = eventTypeFor(event, offer, endpoint);
    if (!type) return null;
    const sold = soldView(event, offer, endpoint, asSold);
    const payload = callbackPayload(event, type, offer, endpoint.interface, shares, undefined, sold);
    if (offer && offerClosedToViewerNow(event, offer, endpoint)) payload.data.offer = { id: offer.id };
    return { type, payload };
  };
}
