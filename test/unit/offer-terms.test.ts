import { informationalRestrictions, requireValidDay, requireWithinCustomerLimit, requireWithinOrderLimit } from '../../domain/offer-terms';
import { exclusiveOn, openTo } from '../../domain/exclusivity';
import { Failure } from '../../domain/failures';

/** The pure rules behind issue 20's restrictions and exclusivity, at their boundaries. */
describe("the advertiser's terms as rules", () => {
  const offer = (restrictions: Record<string, unknown>) => ({ id: 'ofr_1', document: { restrictions } });
  const code = (f: () => void) => {
    try {
      f();
      return undefined;
    } catch (err) {
      return (err as Failure).details[0];
    }
  };

  it('valid_days reads the weekday in UTC', () => {
    const mondayOnly = offer({ valid_days: ['monday'] });
    // 2026-11-23 is a Monday.
    expect(code(() => requireValidDay(mondayOnly, new Date('2026-11-23T23:59:59Z')))).toBeUndefined();
    expect(code(() => requireValidDay(mondayOnly, new Date('2026-11-24T00:00:00Z')))).toMatchObject({
      code: 'outside_valid_days',
      weekday: 'tuesday',
      valid_days: ['monday'],
    });
    // Monday 21:00 in New York (UTC-5) is Tuesday in UTC.
    expect(code(() => requireValidDay(mondayOnly, new Date('2026-11-23T21:00:00-05:00')))?.code).toBe('outside_valid_days');
    expect(code(() => requireValidDay(offer({}), new Date('2026-11-24T00:00:00Z')))).toBeUndefined();
    expect(code(() => requireValidDay(offer({ valid_days: [] }), new Date()))).toBeUndefined();
  });

  it('limits count up to and including the limit', () => {
    expect(code(() => requireWithinOrderLimit(offer({ limit_per_order: 2 }), 2, 'items[0].quantity'))).toBeUndefined();
    expect(code(() => requireWithinOrderLimit(offer({ limit_per_order: 2 }), 3, 'items[0].quantity'))).toMatchObject({
      code: 'invalid_field',
      field: 'items[0].quantity',
    });
    expect(code(() => requireWithinCustomerLimit(offer({ limit_per_customer: 3 }), 2, 1, 'f'))).toBeUndefined();
    expect(code(() => requireWithinCustomerLimit(offer({ limit_per_customer: 3 }), 2, 2, 'f'))).toMatchObject({
      code: 'customer_limit_reached',
      held: 2,
      available: 1,
    });
  });

  it('informational restrictions are put in words', () => {
    expect(informationalRestrictions({ restrictions: { min_age: 18, online_redemption: false } })).toEqual([
      'Minimum age 18',
      'Redeem in person',
    ]);
    expect(informationalRestrictions({})).toEqual([]);
  });

  it('exclusivity holds before `until` begins, for the named clients only', () => {
    const doc = { exclusivity: { exclusive: true, channels: ['cli_a'], until: '2026-12-01' } };
    expect(exclusiveOn(doc, '2026-11-30')).toBe(true);
    expect(exclusiveOn(doc, '2026-12-01')).toBe(false);
    expect(openTo(doc, 'cli_a', '2026-11-30')).toBe(true);
    expect(openTo(doc, 'cli_b', '2026-11-30')).toBe(false);
    expect(openTo(doc, 'cli_b', '2026-12-01')).toBe(true);
    expect(openTo({ exclusivity: { exclusive: false, channels: ['cli_a'] } }, 'cli_b', '2026-11-30')).toBe(true);
    expect(openTo({ exclusivity: { exclusive: true, channels: ['cli_a'] } }, 'cli_b', '2999-01-01')).toBe(false);
    expect(openTo({}, 'cli_b', '2026-11-30')).toBe(true);
  });
});
