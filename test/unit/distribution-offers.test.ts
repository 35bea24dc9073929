import { boundingBox } from '../../domain/search-geometry';
import { offerClosedAt } from '../../domain/offer-closing';
import { skuOf, toDistributionOffer } from '../../schemas/distribution-offer-view';
import { toSubmissionOffer } from '../../schemas/offer-view';
import { DistributionOfferQuery } from '../../schemas/distribution-offer';
import { OfferInput } from '../../schemas/offer';
import type { OfferRow } from '../../store/database';
import { validOffer } from '../setup/fixtures';

const TODAY = '2026-11-22';
const at = (iso: string) => new Date(iso);

function row(overrides: Partial<OfferRow> = {}, doc: Record<string, unknown> = {}): OfferRow {
  return {
    id: 'ofr_abc123',
    client_id: 'cli_1',
    advertiser_id: 'adv_1',
    status: 'approved',
    type: 'deal',
    title: 'x',
    start_date: '2026-01-01',
    end_date: '2099-12-31',
    price_amount: 4500,
    currency_code: 'USD',
    initial_quantity: 100,
    quantity_in_stock: 10,
    reserved_quantity: 0,
    sells_supplied_codes: false,
    document: OfferInput.parse(validOffer(doc)),
    event_sequence: 1,
    created_at: at('2026-11-01T00:00:00Z'),
    updated_at: at('2026-11-20T10:00:00Z'),
    submitted_at: at('2026-11-01T00:00:00Z'),
    review_due_at: null,
    reviewed_at: at('2026-11-02T00:00:00Z'),
    reviewed_by: 'r',
    rejection_reason: null,
    published_at: at('2026-11-02T00:00:00Z'),
    closed_at: null,
    availability_changed_at: null,
    value_amount: 9000,
    discount_percent: 50,
    nationwide_countries: [],
    vouchers_expire_on: null,
    exclusive_until: null,
    exclusive_channels: null,
    category_ids: [2],
    unplaced_locations: [],
    ...overrides,
  };
}

describe('distribution read model', () => {
  it('derives a stable sku from the offer id', () => {
    expect(skuOf('ofr_abc123')).toBe('OM-abc123');
  });

  it('computes revenues from configurable shares, rounding down, and none without a price', () => {
    const o = toDistributionOffer(
      row({}, { price: { currency_code: 'EUR', amount: 999 }, value: { currency_code: 'EUR', amount: 2000 } }),
      { distributorPercent: 15, accountPercent: 33 },
      TODAY,
    );
    expect(o.distributor_revenue).toEqual({ currency_code: 'EUR', amount: 149 });
    expect(o.account_revenue).toEqual({ currency_code: 'EUR', amount: 49 });
    const free = toDistributionOffer(row({}, { type: 'coupon', price: undefined, initial_quantity: undefined }), undefined, TODAY);
    expect(free.distributor_revenue).toBeNull();
    expect(free.account_revenue).toBeNull();
  });

  it('dates closed_at by how the offer left the catalogue', () => {
    expect(offerClosedAt(row(), TODAY)).toBeNull();
    expect(offerClosedAt(row({ status: 'closed', closed_at: at('2026-11-21T08:00:00Z') }), TODAY)).toEqual(at('2026-11-21T08:00:00Z'));
    expect(offerClosedAt(row({ status: 'cancelled' }), TODAY)).toEqual(at('2026-11-20T10:00:00Z'));
    expect(offerClosedAt(row({ status: 'pending', published_at: null }), TODAY)).toBeNull();
    expect(offerClosedAt(row({ end_date: '2026-11-20' }), TODAY)).toEqual(at('2026-11-21T00:00:00Z'));
    expect(offerClosedAt(row({ quantity_in_stock: 0 }), TODAY)).toEqual(at('2026-11-20T10:00:00Z'));
    // Sales leave updated_at alone: a sold-out offer closed when its stock reached zero.
    expect(offerClosedAt(row({ quantity_in_stock: 0, availability_changed_at: at('2026-11-21T08:00:00Z') }), TODAY)).toEqual(
      at('2026-11-21T08:00:00Z'),
    );
    expect(offerClosedAt(row({ quantity_in_stock: null }), TODAY)).toBeNull();
    // Vouchers expired: when the review workflow recorded it, never before the day after vouchers_expire.on.
    const expired = (over: Partial<OfferRow>) =>
      row({ ...over, document: { ...(row().document as object), vouchers_expire: { on: '2026-11-20' } } });
    expect(offerClosedAt(expired({}), TODAY)).toEqual(at('2026-11-21T00:00:00Z'));
    expect(offerClosedAt(expired({ availability_changed_at: at('2026-11-21T00:00:03Z') }), TODAY)).toEqual(at('2026-11-21T00:00:03Z'));
    expect(offerClosedAt(expired({ availability_changed_at: at('2026-11-01T00:00:00Z') }), TODAY)).toEqual(at('2026-11-21T00:00:00Z'));
  });

  it('shows the same closed_at on the submission interface as on the distribution one (issue 34)', () => {
    const today = new Date().toISOString().slice(0, 10);
    const cases: Partial<OfferRow>[] = [
      { status: 'cancelled' },
      { status: 'suspended' },
      { status: 'closed', closed_at: at('2026-11-21T08:00:00Z') },
      { quantity_in_stock: 0, availability_changed_at: at('2026-11-21T08:00:00Z') },
      {},
    ];
    for (const over of cases) {
      const r = row(over);
      const shown = toSubmissionOffer(r).closed_at;
      expect(shown === null ? null : new Date(shown).toISOString()).toBe(toDistributionOffer(r, undefined, today).closed_at);
    }
    expect(toSubmissionOffer(row({ status: 'cancelled' })).closed_at).toEqual(at('2026-11-20T10:00:00Z'));
  });

  it('draws a bounding box that contains the circle', () => {
    const box = boundingBox({ latitude: 40.75, longitude: -74 }, 25);
    expect(box.maxLat - 40.75).toBeCloseTo(25 / 69.0545, 5);
    expect(box.maxLng - -74).toBeGreaterThan(25 / 69.0545); // longitude degrees are shorter away from the equator
  });
});

describe('search query schema', () => {
  const parse = (q: Record<string, unknown>) => DistributionOfferQuery.safeParse(q);

  it('parses sort_by, lists and defaults', () => {
    const r = parse({ sort_by: 'price desc', types: 'deal, coupon', categories: ['1', '2,3'], page: '2' });
    expect(r.success && r.data).toMatchObject({
      sort_by: { field: 'price', direction: 'desc' },
      types: ['deal', 'coupon'],
      categories: [1, 2, 3],
      page: 2,
      per_page: 25,
    });
    expect(parse({ sort_by: 'title' }).data?.sort_by).toEqual({ field: 'title', direction: 'asc' });
    expect(parse({ sort_by: 'PRICE+ASC' }).success).toBe(false);
    expect(parse({ sort_by: 'price ASC' }).data?.sort_by).toEqual({ field: 'price', direction: 'asc' });
  });

  it('reports a bad list item on the parameter itself', () => {
    const r = parse({ types: 'deal,bogus' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toEqual(['types']);
  });
});
