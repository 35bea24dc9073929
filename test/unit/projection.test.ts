import { z } from 'zod';
import { compileProjection } from '../../schemas/projection';
import { DistributionOfferList, DistributionOfferResponse } from '../../schemas/distribution-offer';
import { toDistributionOffer } from '../../schemas/distribution-offer-view';
import { OfferInput } from '../../schemas/offer';
import { boundedListReply } from '../../schemas/envelope';
import type { FoundOffer } from '../../store/distribution-search';
import { validOffer } from '../setup/fixtures';

/*
 * The search answers through the schema's projection (api/serializers.ts) instead of zod's encoder:
 * the two must write the same JSON for every answer the service builds.
 */

const TODAY = '2026-11-22';

function found(doc: Record<string, unknown>, overrides: Partial<FoundOffer> = {}): FoundOffer {
  return {
    id: 'ofr_abc123',
    client_id: 'cli_1',
    advertiser_id: 'adv_1',
    status: 'approved',
    quantity_in_stock: 10,
    document: OfferInput.parse(validOffer(doc)),
    end_date: '2099-12-31',
    published_at: new Date('2026-11-02T00:00:00Z'),
    updated_at: new Date('2026-11-20T10:00:00Z'),
    closed_at: null,
    availability_changed_at: null,
    ...overrides,
  };
}

const zodJson = (schema: z.ZodType, value: unknown) => JSON.stringify(z.encode(schema, value as never));

describe('schema projection', () => {
  const offers = [
    found({}),
    found({}, { distance: 3.14159, quantity_in_stock: null, published_at: null }),
    found({
      type: 'coupon',
      price: undefined,
      initial_quantity: undefined,
      discount: undefined,
      vouchers_expire: { days_after_purchase: 30 },
    }),
    found({
      items: [{ title: 'Starter', quantity: 2, value: { currency_code: 'USD', amount: 800 } }],
      demographics: { gender: 'any', min_age: 18, interests: ['food'] },
      restrictions: { limit_per_customer: 2, valid_days: ['monday'] },
      creative: { headlines: ['A'], original_media: [{ id: 'att_1' }, { id: 'att_2' }] },
      advertiser: {
        name: 'Roma',
        categories: [{ id: 2 }],
        redemption_locations: [{ city: 'Berlin', country_code: 'DE', latitude: 52.52, longitude: 13.4 }, { country_code: 'US' }],
      },
    }),
  ];
  const media = {
    base: 'https://api.example/distribution/beta',
    attachments: new Map([['att_1', { id: 'att_1', client_id: 'cli_1', content_type: 'image/png', width: 10, height: null } as never]]),
  };
  const views = offers.map((o) => toDistributionOffer(o, undefined, TODAY, media));

  it('writes the same JSON as the zod encoder for search pages and single offers', () => {
    const project = compileProjection(DistributionOfferList);
    const page = boundedListReply(
      'offers',
      { rows: views, total: 7, total_relation: 'eq', next_cursor: 'eyJ2IjoxfQ' },
      { page: 2, per_page: 4 },
    );
    expect(JSON.stringify(project(page))).toBe(zodJson(DistributionOfferList, page));
    const last = boundedListReply('offers', { rows: views, total: 7, total_relation: 'eq', next_cursor: null }, { page: 2, per_page: 4 });
    expect(JSON.stringify(project(last))).toBe(zodJson(DistributionOfferList, last));
    const one = compileProjection(DistributionOfferResponse);
    for (const offer of views) {
      const body = { status: 'OK' as const, offer };
      expect(JSON.stringify(one(body))).toBe(zodJson(DistributionOfferResponse, body));
    }
  });

  it('drops fields the schema does not declare, at every level, and keeps the schema order', () => {
    const view = views[3];
    const polluted = {
      zzz: 1,
      ...view,
      review_notes: 'internal',
      price: { amount: 4500, currency_code: 'USD', cost: 1 },
      advertiser: { ...view.advertiser, secret: 'x', redemption_locations: [{ country_code: 'US', internal_id: 7 }] },
    };
    const project = compileProjection(DistributionOfferResponse);
    const body = { status: 'OK' as const, offer: polluted, extra: true };
    const json = JSON.stringify(project(body as never));
    expect(json).toBe(zodJson(DistributionOfferResponse, body));
    expect(json).not.toMatch(/review_notes|secret|internal_id|"cost"|zzz|extra/);
    expect(json.indexOf('"currency_code"')).toBeLessThan(json.indexOf('"amount"'));
  });

  it('leaves kinds it does not shape itself (transforms, records, loose objects) to zod', () => {
    const schema = z.object({
      n: z.string().transform((s) => s.length),
      r: z.record(z.string(), z.number()),
      loose: z.looseObject({ a: z.number() }),
      u: z.union([z.object({ k: z.literal('a'), a: z.number() }), z.object({ k: z.literal('b') })]),
    });
    const value = { n: 3, r: { x: 1 }, loose: { a: 1, b: 2 }, u: { k: 'a', a: 1, drop: true } };
    // Encoding a transform is refused by zod itself; without it the rest is zod's own output.
    const rest = schema.omit({ n: true });
    const { n: _n, ...restValue } = value;
    expect(JSON.stringify(compileProjection(rest)(restValue as never))).toBe(zodJson(rest, restValue));
    expect(() => compileProjection(schema)(value as never)).toThrow();
  });
});
