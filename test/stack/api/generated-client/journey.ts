import createClient from 'openapi-fetch';
import type { paths as DeveloperPaths } from './developer';
import type { components as DistributionParts, paths as DistributionPaths } from './distribution';
import type { components as SubmissionParts, paths as SubmissionPaths } from './submission';

/*
 * What an integrator writes against types generated from the published documents with
 * openapi-typescript, calling the API with openapi-fetch. `./developer`, `./distribution` and
 * `./submission` are not committed: test/stack/api/generated-client.test.ts generates them from the
 * served documents into a temporary folder, type-checks this file there (tsconfig.json beside it),
 * and then runs it against the live API.
 */

/** The named types the documents give: what an integrator declares its own values with. */
export type NewOffer = SubmissionParts['schemas']['OfferCreateInput'];
type Offer = SubmissionParts['schemas']['SubmissionOffer'];
type Order = DistributionParts['schemas']['Order'];
type Voucher = SubmissionParts['schemas']['Voucher'];
type Refusal = SubmissionParts['schemas']['Error'];

/** What the program saw, for the test to compare with what the API promises. */
export interface Seen {
  signupError: unknown;
  created: number;
  decided: string;
  found: boolean;
  foundNear: boolean;
  vouchers: number;
  redeemed: string;
  again: [number, string];
  readBack: string | undefined;
}

/**
 * A developer signs up, then submits an offer (approved by `approve`, the review console's
 * decision), searches for it, orders two vouchers and redeems one, through the generated clients only.
 */
export async function journey(opts: { baseUrl: string; offer: NewOffer; approve: (offerId: string) => Promise<string> }): Promise<Seen> {
  // Sign-up needs no key; it answers one key per interface, with the address each one works at.
  const developer = createClient<DeveloperPaths>({ baseUrl: `${opts.baseUrl}/developer/beta` });
  const signedUp = await developer.POST('/signups', { body: { signup: { email: `gen-${Date.now()}@example.com`, name: 'Gen' } } });
  const keys = signedUp.data!.signup.keys;
  const submission = createClient<SubmissionPaths>({
    baseUrl: keys.submission.base_url,
    headers: { 'X-SERVICE-API-KEY': keys.submission.key },
  });
  const distribution = createClient<DistributionPaths>({
    baseUrl: keys.distribution.base_url,
    headers: { 'X-SERVICE-API-KEY': keys.distribution.key },
  });

  // The advertiser submits; an operator decides.
  const created = await submission.POST('/offers', { body: { offer: opts.offer } });
  const offer: Offer = created.data!.offer;
  const offerId = offer.id;
  const decided = await opts.approve(offerId);

  // The publisher searches near a postal code and near coordinates (numbers, as the documents type
  // them), newest first (the suite's other offers share the neighbourhood), and orders two vouchers.
  const newest = { sort_by: 'published_at desc', per_page: 100 };
  const found = await distribution.GET('/offers', { params: { query: { postal_code: '10001', radius: 5, ...newest } } });
  const near = await distribution.GET('/offers', { params: { query: { lat: 40.7484, lng: -73.9857, radius: 2.5, ...newest } } });
  const placed = await distribution.POST('/orders', {
    body: { order: { order_number: `gen-${offerId}`, customer_name: 'Ada Lovelace', items: [{ offer_id: offerId, quantity: 2 }] } },
  });
  const order: Order = placed.data!.order;
  const voucherId = order.vouchers[0]!.id;

  // The merchant redeems one at the till, once; a second redemption is refused with the error body.
  const redeemPath = { params: { path: { id: offerId, voucher_id: voucherId } }, body: { voucher: { status: 'redeemed' as const } } };
  const redeemed = await submission.PUT('/offers/{id}/vouchers/{voucher_id}', redeemPath);
  const again = await submission.PUT('/offers/{id}/vouchers/{voucher_id}', redeemPath);
  const voucher: Voucher = redeemed.data!.voucher;
  const refusal: Refusal = again.error!;

  // The publisher sees the redemption on its order.
  const read = await distribution.GET('/orders/{id}', { params: { path: { id: order.id } } });
  return {
    signupError: signedUp.error,
    created: created.response.status,
    decided,
    found: found.data!.offers.some((o) => o.id === offerId),
    foundNear: near.data!.offers.some((o) => o.id === offerId),
    vouchers: order.vouchers.length,
    redeemed: voucher.status,
    again: [again.response.status, refusal.status],
    readBack: read.data!.order.vouchers.find((v) => v.id === voucherId)?.status,
  };
}
