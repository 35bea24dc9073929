import { insertOffer, changeOfferStatus } from '../../store/offers';
import { newId } from '../../store/ids';
import { OfferInput } from '../../schemas/offer';
import type { Db } from '../../store/db';
import { eventually } from './eventually';
import type { Harness } from './harness';
import { DIST } from './paths';
import { offerBody as validOffer } from '../../bench/offer-fixture';

/** A complete, valid deal as an advertiser would POST it (JSON body of `{offer: …}`): the benchmarks' deal, one copy for both. */
export { validOffer };

/** Waits until the offer's status is `expected` (its review workflow records it in its own time). */
export async function waitForOfferStatus(h: Harness, offerId: string, expected: string, timeoutMs = 30_000): Promise<void> {
  let status: string | undefined;
  await eventually(
    () => `offer ${offerId} to be ${expected} (it is ${status})`,
    async () => {
      status = (await h.services.db.selectFrom('offers').select('status').where('id', '=', offerId).executeTakeFirst())?.status;
      return status === expected;
    },
    { timeoutMs },
  );
}

/**
 * An offer written straight to the database in the given status, for tests of other areas
 * (search, orders) that need sellable offers without driving a review workflow.
 */
export function seedOffer(
  h: Harness,
  clientId: string,
  overrides: Record<string, unknown> = {},
  status: SeedStatus = 'approved',
): Promise<string> {
  return writeOffer(h.services.db, clientId, OfferInput.parse(validOffer(overrides)), status);
}

type SeedStatus = 'pending' | 'approved' | 'suspended' | 'cancelled';

/** The same, given the database and a parsed offer. */
export async function writeOffer(db: Db, clientId: string, input: OfferInput, status: SeedStatus): Promise<string> {
  const id = newId('ofr');
  // Supplied codes go to their own table, as the offers service sends them (services/offers.ts).
  const { vouchers: suppliedCodes, ...rest } = input;
  await insertOffer(db, { id, clientId, input: suppliedCodes ? { ...rest, initial_quantity: suppliedCodes.length } : rest, suppliedCodes });
  if (status !== 'pending') await changeOfferStatus(db, { key: `seed:${id}:approve`, offerId: id, to: 'approved', actor: 'review_team' });
  if (status === 'suspended' || status === 'cancelled')
    await changeOfferStatus(db, { key: `seed:${id}:${status}`, offerId: id, to: status, actor: 'advertiser' });
  return id;
}

/** The deal fixture's advertiser under a name of its own: a shop with its own staff, found by setup/counter.ts `advertiserId`. */
export const advertiserNamed = (name: string) => ({ ...(validOffer().advertiser as Record<string, unknown>), name });

/** What makes the deal fixture a $50 gift card. */
export const GIFT_CARD_50 = {
  type: 'gift_card',
  price: { currency_code: 'USD', amount: 5000 },
  value: { currency_code: 'USD', amount: 5000 },
  discount: undefined,
};

/** A voucher as its order's answer shows it. */
export interface BoughtVoucher {
  id: string;
  redemption_code: string;
  print_url: string;
}

/** Buys one unit of the offer for `customerName` with the distribution key `distKey`; answers its voucher. */
export async function buyOne(h: Harness, distKey: string, offerId: string, customerName = 'Ada'): Promise<BoughtVoucher> {
  const res = await h.app.inject({
    method: 'POST',
    url: `${DIST}/orders`,
    headers: { 'x-service-api-key': distKey },
    payload: {
      order: {
        order_number: `buy-${Math.random().toString(36).slice(2)}`,
        customer_name: customerName,
        items: [{ offer_id: offerId, quantity: 1 }],
      },
    },
  });
  if (res.statusCode !== 200) throw new Error(`buy ${offerId}: ${res.statusCode} ${res.body}`);
  return res.json().order.vouchers[0];
}
